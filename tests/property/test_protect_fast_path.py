"""Protect's shortcuts change no protected form: a text with no trigger character is protected at once,
the regex scan is skipped for it, and a text's scan tries only the kinds it can hold, each kind's regex
on its own; all must give what one alternation of every kind gives, text for text."""

from __future__ import annotations

import re
from unittest import mock

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pipeline.placeholders import kinds
from pipeline.placeholders import protect as protect_module
from pipeline.placeholders.protect import XLIFF_INLINE, protect
from pipeline.placeholders.runs import Span
from pipeline.segments import Protected

#: Real examples of every placeholder kind (and of text that only looks like one), from the unit tests
#: of protection and checks and from the grammar module's documentation.
EXAMPLES = [
    # printf, flagged and safe
    "%s", "%d", "%(name)s", "%1$s", "%2$d", "%%", "%lld", "%zu", "%@", "%.2f", "%-5d", "% d", "50% discount",
    "100%% done", "%H.%M", "%b%e",
    # brace fields and ICU
    "{}", "{0}", "{count}", "{name!r}", "{size:.1f}", "{room.name}", "{a[0]}", "{value!r:>10}", "{see below}",
    "{Aufzählung}", "{n, plural, one {# file} other {# files}}", "{g, select, male {he} other {they}}",
    "{when, date, short}", "'{'", "{{", "}}", "{", "}", "#",
    # template, ruby, Symfony, dollar
    "{{ var }}", "{{braces}}", "{% if x %}", "{{{ wiki }}}", "%{name}", "%size%", "%name%", "$name", "${HOME}",
    "$cfg['Servers']", "$month$year", "$5", "$TMPDIR를", "$línia",
    # bracket markup
    "[b]", "[/b]", "[em]", "[a@https://example.com]", "[/a]", "[doc@faq-1]", "[color=red]", "[x]", "[default]",
    # HTML, XML, entities
    "<b>", "</b>", '<a href="x">', "</a>", "<br/>", "<br>", "<strong>", "<address>", "<new column>", "<!-- c -->",
    "<![CDATA[x]]>", "<?pi x?>", "&amp;", "&nbsp;", "&#160;", "&#x263A;", "&lt;b&gt;", "&lt;/b&gt;",
    '<ph id="1">{0}</ph>', '<mrk mtype="protected">x</mrk>', '<x id="1"/>',
    # links
    "https://example.com/docs", "ftp://host/f", "help@example.org", "a@b.org", "mailto:x@y.de",
    # code of other programs: strftime, GCC, Qt, options, paths, quoted code, identifiers, wiki, ICU arguments
    "%Y-%m-%d", "%B", "%-d", "%Ey", "%qs", "%r", "%R", "%<constexpr%>", "%<", "%>", "%'", "%Ln", "%L1", "%1",
    "--scale", "-ffixed-line-length", "-O2", "--color=auto", "e-mail", "/usr/local/bin", "~/.config", "./configure",
    "../po", "and/or", "C:\\Windows", "`make install`", "``x``", "`configure'", "$(module)s", "!$OMP DO",
    "!$ACC LOOP", "SYS$LOGIN", "[[Page]]", "[[Page|", "]]", "'''", "''", "{{{1}}}", "{ limit }", "{id, number}",
    "[kbd]", "[/kbd]", "<qt>", "<nobr>", "</acronym>", '<acronym title="Hyper Text">', '<img alt="A cat" src="c"/>',
    "<filename>", "</filename>", "&lt;script&gt;", "-", "/", ".", "~", "'", "`", "]",
    "needs_extensions", "PAGE_WIDTH", "conf.py", "org.gnome.Shell", "done.Next", "e.g.", "Dpkg::Shlibs",
    "add_node()", "()", "phpMyAdmin", "KPluginFactory", "URLs", "flatpages/default.html", "META-INF/a.xml",
    "[code]main[/code]", "<code>%s</code>", "<kbd>Ctrl</kbd>", "${python:round(x, 1)}", "-a|--all",
    # Qt, controls, plain text
    "%1", "%n", "&&", "\n", "\t", "\r", "\v", "\f", " ", "  ", "word", "Wört", "日本", "Ünïcödé", ":", "@", "<", ">",
    "&", "[", "]", "$", "%",
]  # fmt: skip
FLAGS = st.lists(
    st.sampled_from(
        [
            "python-format",
            "c-format",
            "python-brace-format",
            "php-format",
            "javascript-format",
            "ruby-format",
            "qt-format",
            "perl-format",
            "sh-format",
            "no-c-format",
            "no-python-format",
            "possible-c-format",
            "fuzzy",
            "range: 0..5",
            XLIFF_INLINE,
        ]
    ),
    max_size=3,
    unique=True,
)
_NO_TRIGGER = st.characters(exclude_characters="<&:@{}%$[]`'\n\t\r\v\f-/.~_()", exclude_categories=["Cs"])
TEXT = st.one_of(
    st.lists(st.sampled_from(EXAMPLES) | st.text(_NO_TRIGGER, max_size=6), max_size=10).map("".join),
    st.text(max_size=40),
    st.text(_NO_TRIGGER, max_size=40),
)


#: The oracle of the kinds' scan: one alternation of every kind, in their order of precedence.
_EVERY_KIND = re.compile(
    "|".join(f"(?P<{k.replace('-', '_')}>{p})" for k, p in kinds._KIND_PATTERNS.items()),
    re.VERBOSE | re.DOTALL,
)


def _alternation_spans(core: str, scanned: tuple[int, ...], start: int, end: int) -> list[Span]:
    """What the alternation of every kind finds in ``core[start:end]`` (``scanned`` left aside)."""
    return [
        (m.start(), m.end(), (m.lastgroup or "").replace("_", "-"), False)
        for m in _EVERY_KIND.finditer(core, start, end)
        if m.start() != m.end()
    ]


def _full_scan(text: str, flags: tuple[str, ...]) -> Protected:
    """``protect`` as it would be with every text searched by one alternation of every kind: no trigger
    shortcut, no kinds narrowed to those the text can hold, no kind searched on its own, no memo."""
    with (
        mock.patch.object(protect_module, "TRIGGERS", re.compile("")),
        mock.patch.object(kinds, "scanned_in", lambda text: tuple(range(len(kinds._SCANNED)))),
        mock.patch.object(kinds, "spans", _alternation_spans),
    ):
        return protect_module._protect.__wrapped__(text, flags)


@settings(max_examples=600)
@given(TEXT, FLAGS)
@example("Use [b]bold[/b] here", [])
@example("Mail help@example.org", [])
@example("See https://example.com/docs", [])
@example("$month$year", [])
@example("0~/.config", [])  # a dotfile after a folder glued to a word
@example("{n, plural, one {# file} other {# files}}", [])
@example("{% a {% b %} c {% d {{ e }} %} {% f", [])  # a tag is searched for up to the last "%}" only
@example("%} {% a", [])
def test_protect_gives_what_the_full_scan_gives(text: str, flags: list[str]) -> None:
    assert protect(text, flags) == _full_scan(text, tuple(flags))


# No deadline: the first example compiles every kind's pattern (each compiled at its first use), which
# on a loaded machine took 450 ms once; the property is about what the patterns match, not their speed.
@settings(max_examples=300, deadline=None)
@given(TEXT)
def test_every_placeholder_holds_a_trigger_character(text: str) -> None:
    # The shortcut's premise, kind by kind: whatever any kind matches holds a character of TRIGGERS.
    for i, (kind, _, _) in enumerate(kinds._SCANNED):
        for found in kinds._scanned_pattern(i).finditer(text):
            assert protect_module.TRIGGERS.search(found.group()) is not None, (kind, found.group())
