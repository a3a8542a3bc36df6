"""Acceptance for plurals and placeholders: whole runs over the fixtures of tests/data/po (no sockets).

The fake service translates like a careful engine would, keeping every ``<x/>`` tag, but makes
each plural form visible: after a number it writes the number's CLDR-free "name" (``5`` gives
``5 FILES#f``), so ``msgstr[1]`` and ``msgstr[2]`` differ exactly when they were translated from
different representative numbers.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest

from pipeline.catalogs import Unit, UnitState, read_catalog
from pipeline.client.aio import AsyncClient
from pipeline.client.retry import RetryPolicy
from pipeline.config import ServiceSettings, Settings
from pipeline.connect import ClientFactory
from pipeline.placeholders.protect import protect
from pipeline.plural_rules import plural_rule_for
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.plurals import plan_unit
from pipeline.run.records import RunReport
from tests.run_fakes import languages_answer

DATA = Path(__file__).resolve().parents[1] / "data" / "po"
LANGS = ("ar", "cs", "cy", "de", "fr", "ga", "ja", "pl", "ru", "sl")
_TAG_OR_TEXT = re.compile(r"(<x id=\"\d+\"/>)|([^<]+)")
_NUMBER = re.compile(r"(?<![\d.,])(\d+)(?![\d])")


def pseudo(text: str, lang: str, spell_out_one: bool = False, marks: bool = True) -> str:
    """Upper-case the text runs, keep tags, mark numbers with their digits as letters (5 -> '#f')."""

    def run(chunk: str) -> str:
        out = chunk.upper()
        if spell_out_one:
            out = re.sub(r"(?<![\d.,])1(?![\d])", "ONE", out)
        if not marks:
            return out
        suffix = "".join("#" + "".join("abcdefghij"[int(d)] for d in m.group(1)) for m in _NUMBER.finditer(out))
        return out + suffix

    return f"[{lang}] " + "".join(m.group(1) or run(m.group(2)) for m in _TAG_OR_TEXT.finditer(text))


class Fake:
    """Answers /v3/languages (every language of LANGS) and /v2/translate with :func:`pseudo`."""

    def __init__(self, spell_out_one: bool = False, marks: bool = True) -> None:
        self.texts: list[str] = []
        self.spell_out_one, self.marks = spell_out_one, marks

    def handler(self, request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v3/languages":
            return languages_answer(LANGS)
        if request.url.path == "/v2/usage":  # the quota check: an account without a limit
            return httpx.Response(200, json={"character_count": 0, "character_limit": None})
        body = json.loads(request.content)
        assert body["tag_handling"] == "xml" and body["ignore_tags"] == ["x"]
        self.texts.extend(body["text"])
        out = [pseudo(t, body["target_lang"], self.spell_out_one, self.marks) for t in body["text"]]
        return httpx.Response(
            200,
            json={
                "translations": [{"text": t, "detected_source_language": "EN"} for t in out],
                "billed_characters": sum(map(len, body["text"])),
            },
        )

    def factory(self) -> ClientFactory:
        transport = httpx.MockTransport(self.handler)
        return lambda: AsyncClient("http://fake.invalid", "k", transport=transport, retry=RetryPolicy(max_attempts=1))


def translate(
    tmp_path: Path, names: list[str], fake: Fake | None = None, **settings_kw: Any
) -> tuple[Path, RunReport, Fake]:
    root = tmp_path / "project"
    root.mkdir(exist_ok=True)
    for name in names:
        shutil.copy(DATA / name, root / name)
    settings = Settings(
        root=root,
        catalogs=("*.po",),
        service=ServiceSettings(url="http://fake.invalid", concurrency=2),
        cache_dir=tmp_path / "cache",
        **settings_kw,
    )
    fake = fake or Fake()
    report = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=fake.factory())
    return root, report, fake


def _skeleton(lines: list[bytes]) -> list[bytes]:
    """The lines besides msgstr blocks (with their continuations) and flags lines, bytes as they are."""
    out: list[bytes] = []
    in_msgstr = False
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(b"msgstr") or (in_msgstr and stripped.startswith(b'"')):
            in_msgstr = True
            continue
        in_msgstr = False
        if not stripped.startswith(b"#, "):
            out.append(line)
    return out


def assert_only_translated_lines_changed(before: Path, after: Path) -> None:
    """Every line outside msgstr blocks and flags lines is byte-identical, line endings and final newline included."""
    old, new = before.read_bytes().splitlines(keepends=True), after.read_bytes().splitlines(keepends=True)
    assert _skeleton(old) == _skeleton(new), after.name
    assert old[-1].endswith(b"\n") == new[-1].endswith(b"\n")


def untranslated_units(name: str) -> list[Unit]:
    return [u for u in read_catalog(DATA / name).units if u.state is UnitState.UNTRANSLATED]


NPLURALS = {
    "plurals_nplurals_1.po": 1,
    "plurals_nplurals_2.po": 2,
    "plurals_nplurals_2_fr.po": 2,
    "plurals_nplurals_3.po": 3,
    "plurals_nplurals_3_ru.po": 3,
    "plurals_nplurals_4_sl.po": 4,
    "plurals_nplurals_5_ga.po": 5,
    "plurals_nplurals_6.po": 6,
}


def test_every_plural_form_is_filled_and_real_for_nplurals_1_to_6(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root, report, _ = translate(tmp_path, list(NPLURALS))
    assert report.exit_code == 0, report.issues
    for name, n in NPLURALS.items():
        before, after = read_catalog(DATA / name), read_catalog(root / name)
        rule = before.plural
        assert rule is not None
        assert rule.nplurals == n
        for old, new in zip(before.units, after.units, strict=True):
            if old.state is not UnitState.UNTRANSLATED:
                assert new.targets == old.targets
                continue
            assert new.state is UnitState.FUZZY and len(new.targets) == n and all(new.targets), (name, new)
            plan = plan_unit(old.sources, old.flags, n, rule)
            for form, text in enumerate(new.targets):
                # Each form keeps the placeholders of the source it was made from: the singular
                # ("One item selected", none) or the plural / number sentence (the count).
                made_from = plan.forms[form].source or old.sources[plan.forms[form].segment]
                assert sorted(ph.text for ph in protect(text, new.flags).placeholders) == sorted(
                    ph.text for ph in protect(made_from, old.flags).placeholders
                ), (name, form, text)
            if n > 2 and old.sources[0] != "One item selected":
                # different numbers behind different forms: no two forms from the same number
                marks = [re.findall(r"#[a-j]+", t) for t in new.targets]
                numbered = [tuple(m) for m in marks if m]
                assert len(numbered) == len(set(numbered)), (name, new.targets)
        msgfmt_check(root / name)
        assert_only_translated_lines_changed(DATA / name, root / name)


def test_russian_forms_come_from_1_2_and_5(tmp_path: Path) -> None:
    root, report, fake = translate(tmp_path, ["plurals_nplurals_3_ru.po"])
    unit = next(u for u in read_catalog(root / "plurals_nplurals_3_ru.po").units if u.sources[0] == "%(count)d folder")
    assert unit.targets == ("[RU] %(count)d FOLDER#b", "[RU] %(count)d FOLDERS#c", "[RU] %(count)d FOLDERS#f")
    assert {"1 folder", "2 folders", "5 folders"} <= set(fake.texts)


def test_arabic_forms_come_from_0_1_2_3_11_100(tmp_path: Path) -> None:
    _, _, fake = translate(tmp_path, ["plurals_nplurals_6.po"])
    rule = plural_rule_for("ar")
    numbers = sorted(int(t.split()[0]) for t in fake.texts if t.split()[0].isdigit() and "folder" in t)
    assert numbers == [0, 2, 3, 11, 100]  # form 1 (exactly 1) is the singular source as it is
    assert rule is not None
    assert sorted(rule.form_for(n) for n in numbers) == [0, 2, 3, 4, 5]


def test_the_count_with_other_placeholders_in_the_sentence(tmp_path: Path) -> None:
    root, _, _ = translate(tmp_path, ["plurals_nplurals_3_ru.po"])
    unit = next(u for u in read_catalog(root / "plurals_nplurals_3_ru.po").units if u.sources[0] == "%d file in %s")
    assert unit.targets == ("[RU] %d FILE IN #b%s", "[RU] %d FILES IN #c%s", "[RU] %d FILES IN #f%s")


def test_a_singular_without_the_count_takes_21_for_the_russian_one_form(tmp_path: Path) -> None:
    root, _, fake = translate(tmp_path, ["plurals_nplurals_3_ru.po"])
    assert "21 items selected" in fake.texts
    unit = next(u for u in read_catalog(root / "plurals_nplurals_3_ru.po").units if u.sources[0] == "One item selected")
    assert unit.targets[0] == "[RU] %d ITEMS SELECTED#cb"


def test_without_a_count_placeholder_forms_fall_back_and_the_entry_is_flagged(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root, report, _ = translate(tmp_path, ["plurals_without_count_placeholder.po"])
    warnings = [i for i in report.issues if i.severity == "warning"]
    assert len(warnings) == 3 and all("no single count placeholder" in w.reason and w.line for w in warnings)
    assert report.exit_code == 0
    for unit in read_catalog(root / "plurals_without_count_placeholder.po").units:
        assert unit.state is UnitState.FUZZY and len(unit.targets) == 3
    msgfmt_check(root / "plurals_without_count_placeholder.po")


def test_with_fuzzy_marking_off_approximate_entries_are_left_for_a_human(tmp_path: Path) -> None:
    root, report, _ = translate(tmp_path, ["plurals_without_count_placeholder.po"], mark_fuzzy=False)
    assert all(
        u.state is UnitState.UNTRANSLATED for u in read_catalog(root / "plurals_without_count_placeholder.po").units
    )
    assert len([i for i in report.issues if i.severity == "skipped" and "fuzzy marking is off" in i.reason]) == 3


def test_a_number_that_does_not_come_back_falls_back_with_a_warning(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root, report, _ = translate(tmp_path, ["plurals_nplurals_3_ru.po"], fake=Fake(spell_out_one=True))
    warnings = [i for i in report.issues if i.severity == "warning"]
    assert warnings and all("did not come back exactly once" in w.reason for w in warnings)
    unit = next(u for u in read_catalog(root / "plurals_nplurals_3_ru.po").units if u.sources[0] == "%(count)d folder")
    assert unit.targets[0] == "[RU] %(count)d FOLDER" and unit.state is UnitState.FUZZY  # the singular translation
    assert unit.targets[1] == "[RU] %(count)d FOLDERS#c"
    msgfmt_check(root / "plurals_nplurals_3_ru.po")


def test_without_a_plural_forms_header_cldr_gives_the_number_of_forms(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root, report, _ = translate(tmp_path, ["plurals_cldr_fallback_no_plural_forms.po"])
    (unit,) = [u for u in read_catalog(root / "plurals_cldr_fallback_no_plural_forms.po").units if u.plural]
    assert len(unit.targets) == 3 and all(unit.targets)
    msgfmt_check(root / "plurals_cldr_fallback_no_plural_forms.po")
    assert_only_translated_lines_changed(
        DATA / "plurals_cldr_fallback_no_plural_forms.po", root / "plurals_cldr_fallback_no_plural_forms.po"
    )


@pytest.mark.parametrize(
    ("name", "encoding"),
    [
        ("charset_iso8859_2.po", "iso8859-2"),
        ("charset_koi8_r.po", "koi8-r"),
        ("charset_euc_jp.po", "euc_jp"),
        ("latin1_charset.po", "iso8859-1"),
    ],
)
def test_legacy_charsets_are_kept(
    tmp_path: Path, msgfmt_check: Callable[[Path], None], name: str, encoding: str
) -> None:
    root, report, _ = translate(tmp_path, [name])
    assert report.exit_code == 0, report.issues
    after = read_catalog(root / name)
    assert after.encoding == encoding
    assert all(u.state is not UnitState.UNTRANSLATED for u in after.units)
    (root / name).read_bytes().decode(encoding)
    msgfmt_check(root / name)
    assert_only_translated_lines_changed(DATA / name, root / name)


def test_crlf_and_missing_final_newline_survive(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    root, report, _ = translate(tmp_path, ["crlf_line_endings.po", "no_final_newline.po"])
    assert report.exit_code == 0, report.issues
    crlf = (root / "crlf_line_endings.po").read_bytes()
    assert crlf.count(b"\n") == crlf.count(b"\r\n")
    assert not (root / "no_final_newline.po").read_bytes().endswith(b"\n")
    for name in ("crlf_line_endings.po", "no_final_newline.po"):
        msgfmt_check(root / name)
        assert_only_translated_lines_changed(DATA / name, root / name)


def test_every_placeholder_kind_comes_back_verbatim(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    root, report, fake = translate(tmp_path, ["every_placeholder_kind.po"])
    assert report.exit_code == 0, report.issues
    before = untranslated_units("every_placeholder_kind.po")
    after = {u.position: u for u in read_catalog(root / "every_placeholder_kind.po").units}
    for old in before:
        new = after[old.position]
        for source, target in zip((old.sources[0], old.sources[-1]) * 3, new.targets, strict=False):
            want = [ph.text for ph in protect(source, old.flags).placeholders]
            got = [ph.text for ph in protect(target, old.flags).placeholders]
            assert sorted(got) == sorted(want), (old.sources, new.targets)
    sent = "\n".join(fake.texts)
    for secret in ("%(name)s", "https://", "@example", "{{", "$HOME", "${"):
        assert secret not in sent  # the placeholder's own text is never sent
    msgfmt_check(root / "every_placeholder_kind.po")
    assert_only_translated_lines_changed(DATA / "every_placeholder_kind.po", root / "every_placeholder_kind.po")


def test_icu_messages_keep_their_structure(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    # No number marks: '#' is ICU syntax, refused in a case's translated text.
    root, report, fake = translate(tmp_path, ["icu_messages.po"], Fake(marks=False))
    assert report.exit_code == 0, report.issues
    units = read_catalog(root / "icu_messages.po").units
    by_source = {u.sources[0]: u.targets[0] for u in units}
    assert (
        by_source["{gender, select, male {He replied} female {She replied} other {They replied}}"]
        == "[DE] {gender, select, male {HE REPLIED} female {SHE REPLIED} other {THEY REPLIED}}"
    )
    assert (
        by_source["{count, plural, =0 {No files} one {One file} other {# files}}"]
        == "[DE] {count, plural, =0 {NO FILES} one {ONE FILE} other {# FILES}}"
    )
    assert by_source["{g, select, male {{name}} other {{name}}}"] == "{g, select, male {{name}} other {{name}}}"
    for unit in units:
        if unit.state is UnitState.FUZZY:
            from pipeline.placeholders import icu

            assert icu.spans(unit.targets[0].removeprefix("[DE] ")) is not None, unit.targets[0]
    assert not any("select," in t or "male {" in t for t in fake.texts)
    msgfmt_check(root / "icu_messages.po")


def test_segments_with_nothing_to_translate_are_copied_not_sent(tmp_path: Path) -> None:
    root, report, fake = translate(tmp_path, ["only_placeholders.po"])
    assert fake.texts == []
    units = [u for u in read_catalog(root / "only_placeholders.po").units if u.state is UnitState.FUZZY]
    assert len(units) == 11 and all(u.targets == (u.sources[0],) for u in units)
    assert report.totals.segments_copied == 11


@pytest.mark.parametrize(
    "text",
    [
        "42",
        "3.14",
        "1,000,000",
        "—",
        "…",
        "(%d)",
        "%d%%",
        "12:30",
        "#1",
        "+49 30 1234",
        "https://example.com/a",
        "a@b.org",
        "<br/>",
        "{0}/{1}",
        "!!!",
        "© 2024",
        "→",
    ],
)
def test_copy_not_send_covers_numbers_and_punctuation(text: str) -> None:
    assert not protect(text, ["c-format"] if "%" in text else []).needs_translation


@pytest.mark.parametrize("text", ["A", "OK", "5 files", "x²", "日本", "Ünïcode", "{n, plural, other {# files}}"])
def test_anything_with_a_letter_is_sent(text: str) -> None:
    assert protect(text).needs_translation


def test_a_large_catalog(tmp_path: Path, msgfmt_check: Callable[[Path], None]) -> None:
    header = (DATA / "plurals_nplurals_3_ru.po").read_text(encoding="utf-8").split("\n\n")[0]
    blocks = [header]
    for i in range(3000):
        if i % 10 == 0:
            blocks.append(
                f'#, python-format\nmsgid "%(count)d item {i}"\nmsgid_plural "%(count)d items {i}"\n'
                'msgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""'
            )
        elif i % 7 == 0:
            blocks.append(f'#: src/app.py:{i}\nmsgid "Setting number {i} is <b>on</b>"\nmsgstr "Настройка {i}"')
        else:
            blocks.append(
                f'#: src/app.py:{i}\nmsgid "Message number {i} for %s"\nmsgstr ""'.replace(
                    "msgid", "#, c-format\nmsgid", 1
                )
            )
    (tmp_path / "project").mkdir()
    path = tmp_path / "project" / "large.po"
    path.write_text("\n\n".join(blocks) + "\n", encoding="utf-8")
    original = path.read_bytes()
    settings = Settings(
        root=path.parent,
        catalogs=("*.po",),
        service=ServiceSettings(url="http://fake.invalid"),
        cache_dir=tmp_path / "cache",
    )
    fake = Fake()
    report = run_translate(settings, RunOptions(), log=lambda m: None, client_factory=fake.factory())
    assert report.exit_code == 0, report.issues[:3]
    units = read_catalog(path).units
    assert sum(u.state is UnitState.FUZZY for u in units) == 3000 - len(range(7, 3000, 7)) + len(range(70, 3000, 70))
    msgfmt_check(path)
    (tmp_path / "before.po").write_bytes(original)
    assert_only_translated_lines_changed(tmp_path / "before.po", path)


def test_a_run_writes_nplurals_forms_into_an_entry_that_had_more_or_fewer(tmp_path: Path) -> None:
    """Untranslated entries with 1 or 3 forms where nplurals is 2 get 2 (what msgfmt requires); the translated
    ones a human wrote with 1 or 3 are left as they are, the one with 1 reported as left for a human."""
    root, report, _ = translate(tmp_path, ["plural_forms_miscounted.po"])
    catalog = read_catalog(root / "plural_forms_miscounted.po")
    by_source = {u.sources[0]: u for u in catalog.units}
    assert by_source["%d tab"].targets == ("[DE] %d TAB", "[DE] %d TABS")
    assert by_source["%d window"].targets == ("[DE] %d WINDOW", "[DE] %d WINDOWS")
    assert by_source["%d file"].targets == ("%d Datei", "")
    assert by_source["%d link"].targets == ("%d Verknüpfung", "%d Verknüpfungen", "%d Verknüpfungen")
    assert_only_translated_lines_changed(DATA / "plural_forms_miscounted.po", root / "plural_forms_miscounted.po")
    text = (root / "plural_forms_miscounted.po").read_text(encoding="utf-8")
    assert text.count("msgstr[2]") == 2  # the link's and the fuzzy page's, a human's
    assert [(i.line, i.reason) for i in report.issues] == [
        (17, "some plural forms are translated and some are empty; left for a human")
    ]
