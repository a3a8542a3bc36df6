"""Issue #35's examples through `pipeline translate` with the embedded service: nothing that is code is translated.

The embedded engine translates every letter it is given into the target's script (Russian here: Cyrillic),
as an adversary would, so a Latin token that survives in a written entry was protected. Each source lists
the code it holds (``CODE``): every token must be in the written translation byte for byte, and the
translation must be in Cyrillic besides (the rest was translated). The catalogs are tests/data/code/.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.cli import main
from pipeline.damage import Kind, check
from pipeline.placeholders.protect import protect

DATA = Path(__file__).resolve().parents[1] / "data" / "code"
CYRILLIC = re.compile("[\u0400-\u04ff]")

#: source -> code tokens that must come back as they are.
CODE = {
    # markup_tags_whole.po: a tag with a placeholder inside is one placeholder
    'Try <a href="%(url)s">downloading</a> it': ['<a href="%(url)s">', "</a>"],
    'Try <a href="%s">downloading</a> %s': ['<a href="%s">', "</a>", "%s"],
    'Try <a href="%1">downloading</a> it': ['<a href="%1">', "</a>"],
    'See <a href="https://docs.djangoproject.com/en/%(version)s/topics/i18n/">the documentation</a>.': [
        '<a href="https://docs.djangoproject.com/en/%(version)s/topics/i18n/">',
        "</a>",
    ],
    '<acronym title="HyperText Markup Language">HTML</acronym> is supported': ['<acronym title="', '">', "</acronym>"],
    '<img src="logo.png" alt="The project logo" class="logo"/> Welcome': [
        '<img src="logo.png" alt="',
        '" class="logo"/>',
    ],
    # markup_beyond_html.po: Qt rich text, KUIT, BBCode, wiki
    "<qt>Do you <nobr>really</nobr> want to delete it?</qt>": ["<qt>", "<nobr>", "</nobr>", "</qt>"],
    "Cannot open <filename>%1</filename> for reading": ["<filename>%1</filename>"],
    "Press [kbd]config[/kbd] to open the [em]settings[/em] of %s": ["[kbd]", "[/kbd]", "[em]", "[/em]", "%s"],
    "See [[Help:Contents|the help pages]] for '''more''' information": ["[[Help:Contents|", "]]", "'''"],
    # icu_arguments.po
    "Edit post #{id, number}": ["#{id, number}"],
    "Post content is too short ({ limit } characters minimum)": ["({ limit }"],
    "You have {count, plural, =0 {no messages} one {one message} other {# new messages}} from {name}.": [
        "{count, plural, =0 {",
        "{name}.",
    ],
    # code_of_other_formats.po
    "Dates look like %Y-%m-%d": ["%Y-%m-%d"],
    "%B %d, %Y at %I:%M %p": ["%B %d, %Y", "%I:%M %p"],
    "Last seen %a %b %d %H:%M:%S": ["%a %b %d %H:%M:%S"],
    "inlined from %qs at %r%s:%d:%d%R": ["%qs", "%r%s:%d:%d%R"],
    "use %<constexpr%> here, or %<auto{x}%>": ["%<constexpr%>", "%<auto{x}%>"],
    "Conference: {event_title} on %(date)s": ["{event_title}", "%(date)s"],
    "Set $ENV before the logging format $(module)s takes effect": ["$ENV", "$(module)s"],
    "Directives !$OMP DO and !$ACC LOOP are not allowed here": ["!$OMP DO", "!$ACC LOOP"],
    "Use --scale or -ffixed-line-length to change it": ["--scale", "-ffixed-line-length"],
    "The symbol SYS$LOGIN points there": ["SYS$LOGIN"],
    "Run `make install` in /usr/local/bin or ~/.local/bin": ["`make install`", "/usr/local/bin", "~/.local/bin"],
    "Mail help@example.org or see https://example.org/help": ["help@example.org", "https://example.org/help"],
    # e2fsck_codes.po: e2fsck's field expansions and @-abbreviations
    "%s @o @i %i (uid=%Iu, gid=%Ig, mode=%Im, size=%Is)\n": ["%s @o @i %i (", "=%Iu,", "=%Ig,", "=%Im,", "=%Is)"],
    "@E has an incorrect filetype (was %Dt, @s %N).\n": ["@E ", " %Dt, @s %N)"],
    "Too many illegal @bs in @i %i.\n": [" @bs ", " @i %i"],
    "@S last mount time (%t,\n\tnow = %T) is in the future.\n": ["@S ", "(%t,\n\t", " = %T)"],
    (
        "@S @b_size = %b, fragsize = %c.\nThis version of e2fsck does not support fragment sizes different\n"
        "from the @b size.\n"
    ): ["@S @b_size = %b, ", " = %c.\n", " @b "],
    # option_brace_sets.po: util-linux's brace sets of names, options whose name starts with a digit
    " %s [options] {LABEL,UUID,PARTUUID,PARTLABEL}=<value>\n": [" %s [", "] {LABEL,UUID,PARTUUID,PARTLABEL}=<"],
    "options --{raw,json,pairs} and --summary=only are mutually exclusive": ["--{raw,json,pairs}", "--summary=only"],
    " -B, --32bit              turns on ADDR_LIMIT_32BIT\n": [" -B, --32bit ", "ADDR_LIMIT_32BIT"],
    "     --4gb                ignored (for backward compatibility only)\n": ["     --4gb "],
    "Last sector, +/-sectors or +/-size{K,M,G,T,P}": ["{K,M,G,T,P}"],
}


def _translate(tmp_path: Path, names: list[str]) -> tuple[Path, dict[str, Any]]:
    root = tmp_path / "project"
    root.mkdir()
    for name in names:
        source = DATA / name
        shutil.copytree(source, root / name) if source.is_dir() else shutil.copy(source, root / name)
    (root / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["*.po", "symfony/*.xlf"]\n[service]\nurl = "embedded"\n'
        '[cache]\ndir = ".cache"\n[report]\ndir = "report"\n',
        encoding="utf-8",
    )
    assert main(["translate", "--config", str(root / "pipeline.toml"), "--quiet"]) == 0
    return root, json.loads((root / "report" / "report.json").read_text())


@pytest.mark.parametrize(
    "name",
    [
        "markup_tags_whole.po",
        "markup_beyond_html.po",
        "icu_arguments.po",
        "code_of_other_formats.po",
        "e2fsck_codes.po",
        "option_brace_sets.po",
    ],
)
def test_every_code_token_comes_back_as_it_was_and_the_text_around_it_is_translated(
    tmp_path: Path, msgfmt_check: Callable[[Path], None], name: str
) -> None:
    root, report = _translate(tmp_path, [name])
    assert [i for i in report["issues"] if i["severity"] != "warning"] == []
    units = read_catalog(root / name).units
    assert units and all(u.state is UnitState.FUZZY for u in units)
    for unit in units:
        for target in unit.targets:
            for token in CODE.get(unit.sources[0], []):
                assert token in target, (unit.sources[0], token, target)
            assert CYRILLIC.search(target), (unit.sources[0], target)
    msgfmt_check(root / name)
    assert main(["check", str(root / name)]) == 0


def test_text_attributes_and_metavariables_are_translated(tmp_path: Path) -> None:
    root, _ = _translate(tmp_path, ["markup_tags_whole.po", "markup_beyond_html.po"])
    targets = {
        u.sources[0]: u.targets[0]
        for name in ("markup_tags_whole.po", "markup_beyond_html.po")
        for u in read_catalog(root / name).units
    }
    acronym = targets['<acronym title="HyperText Markup Language">HTML</acronym> is supported']
    title = re.match(r'<acronym title="([^"]*)">', acronym)
    assert title is not None and CYRILLIC.search(title.group(1)), acronym  # the reader's text, translated
    alt = re.search(r'alt="([^"]*)"', targets['<img src="logo.png" alt="The project logo" class="logo"/> Welcome'])
    assert alt is not None and CYRILLIC.search(alt.group(1))
    # A lone <word> is a help text's metavariable, which the translator translates; the label of a wiki link too.
    usage = targets["Usage: cp <source> <dest>"]
    assert "<source>" not in usage and re.fullmatch(r"[^<>]+<[\u0400-\u04ff]+> <[\u0400-\u04ff]+>", usage), usage
    assert CYRILLIC.search(targets["See [[Help:Contents|the help pages]] for '''more''' information"].split("|")[1])


def test_a_russian_icu_plural_gets_few_and_many_each_with_its_own_translation(tmp_path: Path) -> None:
    root, _ = _translate(tmp_path, ["icu_arguments.po"])
    targets = {u.sources[0]: u.targets[0] for u in read_catalog(root / "icu_arguments.po").units}
    plural = targets["{count, plural, one {# comment} other {# comments}}"]
    cases = dict(re.findall(r"(\w+) \{([^{}]*)\}", plural))
    assert list(cases) == ["one", "few", "many", "other"], plural
    assert all(body.startswith("# ") and CYRILLIC.search(body) for body in cases.values()), plural
    # =0 covers no category of Russian; the rest are added before other, one from 21 ("one" is not just 1)
    mixed = targets["You have {count, plural, =0 {no messages} one {one message} other {# new messages}} from {name}."]
    assert re.findall(r"(=0|one|few|many|other) \{", mixed) == ["=0", "one", "few", "many", "other"], mixed


def test_qt_plural_count_is_found_and_every_russian_form_is_made_from_its_number(tmp_path: Path) -> None:
    root, report = _translate(tmp_path, ["code_of_other_formats.po"])
    assert not any("no single count placeholder" in i["reason"] for i in report["issues"])
    unit = next(u for u in read_catalog(root / "code_of_other_formats.po").units if u.plural)
    assert len(unit.targets) == 3 and all(t.startswith("%n ") for t in unit.targets), unit.targets


def test_key_based_symfony_xliff_is_translated_from_and_checked_against_the_source_language_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, report = _translate(tmp_path, ["symfony"])
    assert report["totals"]["segments_translated"] == 2
    units = {u.sources[0]: u for u in read_catalog(root / "symfony" / "messages+intl-icu.ru.xlf").units}
    assert re.fullmatch(r"[\u0400-\u04ff ]+ #\{id, number\}", units["post.edit"].targets[0])
    assert "few {" in units["post.num_comments"].targets[0] and "many {" in units["post.num_comments"].targets[0]
    capsys.readouterr()
    # The human translations (CDATA, {limit} for { limit }, <Strong>, a Polish plural with four
    # categories) and the machine ones pass: compared with the English texts, never with the keys.
    assert main(["check", "--config", str(root / "pipeline.toml")]) == 0
    assert "0 error(s)" in capsys.readouterr().err


#: atk35's entries of bash, vim, glib, wget, konsole, kio and django-cms (gnu_vim_kde_code.po, verbatim):
#: a part of the source that picks the entry -> code that must come back as it is.
CODE_IN = {
    "Type `help name'": ["`help'", "`help name'", "`name'", "`info bash'", "`man -k'", "`info'"],
    "trap [-lp]": ["trap", "-lp", "signal_spec"],
    "fc [-e ename]": ["fc [-e", " fc -s", "-lnr"],
    "/dev/(tcp|udp)/host/port": ["/dev/(tcp|udp)/host/port"],
    "<signal.h>": ["<signal.h>"],
    "%(fmt)T": ["%(fmt)T"],
    "type [-afptP]": ["type [-afptP]"],
    ":help iccf<Enter>": [":help iccf<Enter>"],
    "use <override>": ["<override>", "<key name='%s'>", "<schema id='%s'>"],
    ":qa!": [":qa!"],
    ":help 'cm'": [":help 'cm'"],
    "<vimrc>": ["<vimrc>", ".vimrc"],
    "vim.Buffer": ["vim.Buffer", "%s"],
    "%s_ascii.spl": ['"%s_%s.spl"', '"%s_ascii.spl"'],
    ":s\\/sub/": [":s\\/sub/"],
    "*.vim;_vimrc": ["*.vim;_vimrc;_gvimrc", "*.*"],
    "Vim macro files": ["*.vim", "*.*"],
    "smb://server/resource/file.txt": ["smb://server/resource/file.txt"],
    "trash:///": ["trash:///"],
    "<value>": ["<%s>", "<value>"],
    ".netrc": [".netrc"],
    "'PBSZ 0'": ["'PBSZ 0'"],
    "'PROT %c'": ["PROT %c"],
    "==> CWD": ["CWD"],
    "like http://": ["http://", "https://", "file://"],
    "(*.json)": ["(*.json)"],
    "file:/home/konqi": ["file:/home/konqi", "file:/home."],
    '\\{name1,name2,...,"string"}': ['\\{name1,name2,...,"string"}', "\\{@}", "\\{0}"],
    "http://%(host)s%(path)s": ["http://%(host)s%(path)s"],
}


def test_code_of_gnu_vim_kde_and_web_catalogs_comes_back_as_it_was(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    report = _every_entry_keeps_its_code(tmp_path, "gnu_vim_kde_code.po", 29, CODE_IN, msgfmt_check)
    assert [i for i in report["issues"] if i["severity"] != "warning"] == []


def _every_entry_keeps_its_code(
    tmp_path: Path, name: str, entries: int, code_in: dict[str, list[str]], msgfmt_check: Callable[[Path], None]
) -> dict[str, Any]:
    """Translate the fixture ``name`` and see each of its ``entries`` written fuzzy and translated, with the code
    ``code_in`` names for a part of its source (or its Zope message id) as it was; msgfmt and `pipeline check`
    pass the catalog. The run's report."""
    root, report = _translate(tmp_path, [name])
    units = read_catalog(root / name).units
    assert len(units) == entries and all(u.state is UnitState.FUZZY for u in units)
    picked = set()
    for unit in units:
        target = unit.targets[0]
        assert CYRILLIC.search(target), (unit.sources[0], target)
        for part, code in code_in.items():
            if part in unit.sources[0] or part == unit.key:
                picked.add(part)
                assert [token for token in code if token not in target] == [], target
    assert picked == set(code_in)
    msgfmt_check(root / name)
    assert main(["check", str(root / name)]) == 0
    return report


def _translated_and_checked(tmp_path: Path, name: str, msgfmt_check: Callable[[Path], None]) -> dict[str, str]:
    """The translations `pipeline translate` writes into the fixture ``name``, by source, once it is seen that
    nothing was refused and that msgfmt and `pipeline check` pass the catalog."""
    root, report = _translate(tmp_path, [name])
    assert [i for i in report["issues"] if i["severity"] != "warning"] == []
    msgfmt_check(root / name)
    assert main(["check", str(root / name)]) == 0
    return {u.sources[0]: u.targets[0] for u in read_catalog(root / name).units}


#: web_mail_tracker_code.po (zabbix, roundup, verbatim): a part of the source that picks the entry -> code
#: that must come back as it is.
WEB_CODE = {
    "ZBX_SOCKET_BYTES_LIMIT": ["%1$s", "%2$s", "ZBX_SOCKET_BYTES_LIMIT", "include/defines.inc.php"],
    "Roundup trackers index": ["<html><head><title>", "</title></head>", "<body><h1>", "</h1><ol>"],
    "the password be changed": ["%(name)s", "%(url)suser?@template=forgotten&@action=passrst&otk=%(otk)s"],
    "your registration": ["%(name)s", "%(tracker)s", "%(url)s?@action=confrego&otk=%(otk)s"],
    "processor usage in Hz": ["<url>", "<uuid>"],  # "usage" is a word here, no usage line's label
    "Regexps begin with": ["'^.*@example\\.com'"],
}


def test_paths_document_tags_and_links_built_by_directives_of_web_apps_come_back_as_they_were(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    targets = _translated_and_checked(tmp_path, "web_mail_tracker_code.po", msgfmt_check)
    assert len(targets) == len(WEB_CODE)
    for part, code in WEB_CODE.items():
        source = next(s for s in targets if part in s)
        assert CYRILLIC.search(targets[source]), targets[source]
        assert [token for token in code if token not in targets[source]] == [], targets[source]


def test_a_quoted_command_keeps_what_a_user_types_and_its_metavariables_are_translated(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    targets = list(_translated_and_checked(tmp_path, "quoted_commands.po", msgfmt_check).values())
    assert len(targets) == 3 and all(CYRILLIC.search(t) for t in targets), targets
    assert re.search(r"'gnucash-cli --quotes get <[\u0400-\u04ff]+>'", targets[0]), targets[0]
    assert '"roundup-server -c help"' in targets[1] and re.match(r" -c <[\u0400-\u04ff]+> ", targets[1]), targets[1]
    assert re.search(r'"git add <[\u0400-\u04ff]+>\.\.\."', targets[2]), targets[2]


def test_addresses_handles_macros_and_words_after_a_percent_stay_as_they_were() -> None:
    """e2fsck's @-codes and %Iu are one letter after @ and two after %: nothing longer, nothing inside a word. A
    longer name an @ starts is a name of its own (a handle, CSS's @media, roundup's form field @action)."""
    text = "Mail a@b.example or @jack about @media, %@ and @GPG@-agent: 50%less, 50%Discount, @-expanded"
    assert [(p.kind, p.text) for p in protect(text).placeholders] == [
        ("email", "a@b.example"),
        ("at-name", "@jack"),
        ("at-name", "@media"),
        ("safe-printf", "%@"),
        ("build-macro", "@GPG@"),
    ]


def test_a_braced_argument_name_of_a_usage_line_stays_translatable() -> None:
    """sed's {script-only-if-no-other-script} names the script argument: 34 of sed 4.9's 37 translations
    translate it (tests/data/damage/sed-*.po), as they translate [input-file]."""
    usage = "Usage: %s [OPTION]... {script-only-if-no-other-script} [input-file]...\n\n"
    assert [ph.text for ph in protect(usage).placeholders] == ["%s"]


def test_shown_values_and_metavariables_stay_translatable() -> None:
    """Human translators translate these (bash ru, django-cms, django-oscar; vim's <file> metavariables)."""
    for text in ("<unspecified>", "<missing product>", "<no current directory>", "-S <session>\tSource file <session>"):
        assert "<" not in "".join(ph.text for ph in protect(text).placeholders if ph.kind != "option"), text


def test_a_metavariable_named_twice_in_a_text_is_one_metavariable() -> None:
    """GNOME polari's help texts: "[<channel>]" is a metavariable, so is "<channel>" in the prose after it.
    The first was sent as text and the second kept, so "closes <channel>" named a word no longer there."""
    text = "/CLOSE [<channel>] [<reason>] — closes <channel>, by default the current one"
    assert [ph.text for ph in protect(text).placeholders] == ["/CLOSE"]


def test_a_name_repeated_in_a_long_text_is_judged_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every occurrence of a ``<word>`` is judged alike, so it is judged once per text: judged per occurrence,
    each judgement looking at every occurrence, a 100 KB text of 8,000 of them took minutes to protect."""
    from pipeline.placeholders import code_names

    judged: list[str] = []
    real = code_names.CodeNames._judge

    def counted(self: code_names.CodeNames, tag: str) -> bool:
        judged.append(tag)
        return real(self, tag)

    monkeypatch.setattr(code_names.CodeNames, "_judge", counted)
    text = " ".join(f"see <foo{i % 3}> and <bar> here" for i in range(300))
    protect(text)
    assert sorted(judged) == ["<bar>", "<foo0>", "<foo1>", "<foo2>"]


#: usage_synopsis.po (git, bash, vim, sphinx, coreutils verbatim): a part of the source that picks the
#: entry -> the program and subcommand words that must come back as they are.
SYNOPSIS_WORDS = {
    "git commit-graph write [": "git commit-graph write [",
    "git notes [": "git notes [",
    "git submodule set-branch [": "git submodule set-branch [",
    "git bundle list-heads <": "git bundle list-heads <",
    "source filename": "source ",
    "getopts optstring": "getopts ",
    "Usage: cstag": " cstag <",
    "e2label device": " e2label ",
    "findsuper device": " findsuper ",
    "@GPG@-connect-agent": " @GPG@-connect-agent [",
    "help [command]": "help [",
    "print [devices": "print [",
    "overlap [options]": "  overlap [",
}


def test_a_usage_synopsis_keeps_its_program_and_subcommand_words(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    root, report = _translate(tmp_path, ["usage_synopsis.po"])
    assert [i for i in report["issues"] if i["severity"] != "warning"] == []
    targets = {u.sources[0]: u.targets[0] for u in read_catalog(root / "usage_synopsis.po").units}
    assert len(targets) == 18 and all(CYRILLIC.search(t) for t in targets.values()), targets
    for part, words in SYNOPSIS_WORDS.items():
        source = next(s for s in targets if part in s)
        assert words in targets[source], (source, targets[source])
    # the independent damage checker sees no command word changed (it does in what main wrote before:
    # tests/data/damage/written-by-main.po)
    assert [(s, d) for s, t in targets.items() for d in check(s, t) if d.kind is Kind.COMMAND] == []
    # the arguments' names of bash's and e2fsprogs' synopses and the words of sentences are translated
    assert not re.search(
        "filename|optstring|ignore|revisions|loading|combine|device|disk", " ".join(targets.values())
    ), targets
    msgfmt_check(root / "usage_synopsis.po")
    assert main(["check", str(root / "usage_synopsis.po")]) == 0


#: apps_code_found_translated.po (Plone, GNU Mailman, Indico, phpMyAdmin, pretix, roundup, gnome-maps, gcc, verbatim):
#: a part of the source (or of its Zope Default text) that picks the entry -> code that must come back as it is.
APPS_CODE = {
    "doctype_description": ['"<!DOCTYPE html>"'],
    "help_doctype": ['"&lt;!DOCTYPE html&gt;"'],
    "[shell]use_python": ["[shell]use_python: {}"],
    "listaddr(mlist)": ["def listaddr(mlist):\n    print(mlist.posting_address)\n"],
    "posting address by running": ["% mailman withlist -r listaddr -l ant@example.com\n"],
    "2017-12-03T12:00:00": ["2017-12-03T12:00:00%(endsubitem)s"],
    "If column type": ["'a','b','c'…<br>", "'\\\\xyz'", "'a\\'b'"],
    "2006/112/EC": ["2006/112/EC"],
    "perftest": ["[password] [rounds=<", "'password'", "'rounds'", "'scheme='"],
    "maps: URI": ["maps:"],
    "-mcpu=": ["-mcpu=", "-mtune="],
}


def test_code_of_web_apps_compilers_and_gnome_comes_back_and_plones_doctype_entries_are_written(
    tmp_path: Path, msgfmt_check: Callable[[Path], None]
) -> None:
    """Main refused Plone's two doctype entries (the engine translated the doctype: not written) and sent the
    rest's code to the engine as text; now every entry is written, without a warning."""
    report = _every_entry_keeps_its_code(tmp_path, "apps_code_found_translated.po", 11, APPS_CODE, msgfmt_check)
    assert report["issues"] == []
