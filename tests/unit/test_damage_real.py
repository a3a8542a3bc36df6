"""The damage checker over real entries of published catalogs (tests/data/damage, see its README), both ways:
the published human translation passes (or is a listed exception), a damaged one is caught."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest

from pipeline.damage import Change, Damage, Kind, check, check_plural, is_gnu_quote, tokens

DATA = Path(__file__).resolve().parents[1] / "data" / "damage"
PUBLISHED = sorted(p for p in DATA.glob("*-*.po") if p.name not in ("written-by-main.po",))
PUBLISHED = [p for p in PUBLISHED if p.name != "accepted-false-positives.po"]
ACCENTED = str.maketrans("aeiouAEIOUcsnzl", "äëïöüÄËÏÖÜçşñžł")


def _entries(path: Path) -> list[polib.POEntry]:
    return [e for e in polib.pofile(str(path)) if e.msgid]


def _damage(entry: polib.POEntry, translation: list[str] | None = None) -> list[Damage]:
    forms = translation or (
        [entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural)] if entry.msgid_plural else [entry.msgstr]
    )
    if entry.msgid_plural:
        return check_plural([entry.msgid, entry.msgid_plural], forms)
    return check(entry.msgid, forms[0])


def test_the_fixtures_are_there_and_hold_code() -> None:
    assert len(PUBLISHED) >= 20
    entries = [e for path in PUBLISHED for e in _entries(path)]
    assert len(entries) >= 40
    kinds = {t.kind for e in entries for t in tokens(e.msgid)}
    assert {Kind.PRINTF, Kind.MARKUP, Kind.BRACE, Kind.OPTION, Kind.IDENTIFIER, Kind.QUOTED_CODE} <= kinds


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.name)
def test_the_published_human_translation_has_no_damage(path: Path) -> None:
    assert {e.msgid: _damage(e) for e in _entries(path) if _damage(e)} == {}


def _altered(token_text: str) -> str:
    """The token with its first letter accented, or (no letter to accent) taken out."""
    for index, char in enumerate(token_text):
        accented = char.translate(ACCENTED)
        if accented != char:
            return token_text[:index] + accented + token_text[index + 1 :]
    return ""


@pytest.mark.parametrize("path", PUBLISHED, ids=lambda p: p.name)
def test_every_token_altered_in_the_translation_is_caught(path: Path) -> None:
    missed = []
    for entry in _entries(path):
        forms = [entry.msgstr_plural[i] for i in sorted(entry.msgstr_plural)] if entry.msgid_plural else [entry.msgstr]
        for token in tokens(entry.msgid):
            if (
                token.kind is Kind.ICU
                and token.text == "#"
                or token.kind is Kind.GNU_QUOTED
                and not is_gnu_quote(token)
                or token.kind is Kind.AT_CODE
                and not _altered(token.text)
            ):
                continue  # a count; quotes that may hold prose; e2fsck's @b taken out is written out
            hit = [i for i, form in enumerate(forms) if token.text in form]
            if not hit:
                continue
            damaged = [f.replace(token.text, _altered(token.text), 1) if i in hit else f for i, f in enumerate(forms)]
            if not _damage(entry, damaged):
                missed.append((entry.msgid, token.text))
    assert missed == []


ACCEPTED = {  # project -> the (kind, change) the checker reports on that published human translation
    "git": {("metavar", "changed"), ("metavar", "missing"), ("metavar", "added")},
    "gcc": {("printf", "added"), ("quoted-code", "missing"), ("quoted-code", "changed")},
    "gnome-control-center": {("printf", "missing"), ("printf", "added"), ("entity", "missing")},
    "coreutils": {("identifier", "missing"), ("identifier", "changed")},
    "netbox": {("quoted-code", "changed"), ("identifier", "changed")},
    "kcoreaddons": {("markup", "missing"), ("markup", "added"), ("url", "missing")},
    "dpkg": {("metavar", "changed"), ("metavar", "missing"), ("metavar", "added")},
    "glib": {("url", "changed")},
    "bash": {("gnu-quoted", "changed")},
}


def test_each_accepted_false_positive_is_reported_as_listed() -> None:
    """The listed exceptions stay what they are: a change in what is reported shows here."""
    found: dict[str, set[tuple[str, str]]] = {}
    for entry in _entries(DATA / "accepted-false-positives.po"):
        project, _, reason = entry.comment.partition(": ")
        assert reason, entry.msgid
        damage = _damage(entry)
        assert damage, entry.msgid
        found.setdefault(project, set()).update((d.kind.value, d.change.value) for d in damage)
    assert found == ACCEPTED


def test_what_main_wrote_on_published_catalogs_is_caught() -> None:
    entries = _entries(DATA / "written-by-main.po")
    assert len(entries) >= 30
    assert [e.msgid for e in entries if not _damage(e)] == []


def test_e2fsck_codes_changed_are_caught_and_written_out_are_not() -> None:
    """e2fsck expands @i to "inode" and %Dt to an entry's file type in the translated message too."""
    source = "@E has an incorrect filetype (was %Dt, @s %N).\n"
    assert check(source, "L'@E a un type de fichier incorrect (était %Dt, @s %N).\n") == []
    written_out = "Položka „%Dn“ v %p (%i) má chybný filetype (byl %Dt, měl by být %N).\n"
    assert check(source, written_out) == []  # e2fsprogs cs.po: @E and @s written out
    damaged = check(source, "L'@Є a un type de fichier incorrect (était %Dť, @s %N).\n")
    assert {(Kind.AT_CODE, "@Є", Change.ADDED), (Kind.PRINTF, "%Dt", Change.CHANGED)} <= {
        (d.kind, d.token, d.change) for d in damaged
    }
    orphan = "%s @o @i %i (uid=%Iu, gid=%Ig, mode=%Im, size=%Is)\n"
    assert [(d.token, d.became) for d in check(orphan, orphan.replace("%Iu", "%Iü"))] == [("%Iu", "%Iü")]
    # German glues a suffix on (@ne is @n and "e"): e2fsck reads one letter after @
    assert check("@n extent", "@ne Erweiterung") == []


def test_a_brace_set_of_names_translated_is_caught() -> None:
    """util-linux ja.po (published): findfs reads LABEL=, PARTUUID=, never a translation of them."""
    source = " %s [options] {LABEL,UUID,PARTUUID,PARTLABEL}=<value>\n"
    published = " %s [オプション] {ラベル,UUID,パーティションUUID,パーティションラベル}=<値>\n"
    assert (Kind.BRACE, "{LABEL,UUID,PARTUUID,PARTLABEL}") in {(d.kind, d.token) for d in check(source, published)}
    assert check("options --{raw,json,pairs} and", "přepínače --{raw,json,pairs} a") == []
    assert [(d.token, d.became) for d in check("options --{raw,json,pairs} and", "опции --{raw,жсон,pairs} и")] == [
        ("{raw,json,pairs}", "{raw,жсон,pairs}")
    ]
    assert [(d.token, d.became) for d in check(" -B, --32bit  turns on", " -B, --32бит  включает")] == [
        ("--32bit", "--32бит")
    ]
