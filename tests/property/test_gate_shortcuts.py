"""The gate's shortcuts answer what the searches they stand for answer: the markup scan skipped for a
text without a character it needs, and tried only at the characters a match starts with; the tag
before a placeholder found from the last tag opening; a metavariable's glued text and quotes looked at
only where they can be; a trigger character looked for on its own, and the trigger's other
alternatives one by one, as the hint of a name is; an answer whose tags are all placeholders as sent
cut at them alone, and one without a ``<`` known to hold none; a gap without a ``%`` not searched for
the kinds that need one; a text without an option, bracket or colon not searched for a synopsis. Each
is checked against the plain search it replaced, written out here."""

from __future__ import annotations

import re
from unittest import mock

from hypothesis import example, given
from hypothesis import strategies as st

from pipeline.placeholders import code_names, glue, kinds, markup, synopsis
from pipeline.placeholders import protect as protect_module
from pipeline.segments import Placeholder
from tests.property.test_protect_fast_path import EXAMPLES, TEXT

#: Texts with protected placeholders, as an engine's answer or a source's protected form holds them.
TAGGED = st.lists(
    st.sampled_from(['<x id="1"/>', '<x id="23"/>', '<x id="', '"/>', "x", " ", "é", "日", "[", "<"])
    | st.text(max_size=3),
    max_size=12,
).map("".join)


@given(TEXT, st.booleans(), st.booleans())
@example("a `code` b", False, False)
@example("[[Page]] and '''bold''' and {{{1}}}", False, False)
@example("&LT;b&GT;x&lt;/b&gt;", True, True)
def test_the_markup_scan_finds_nothing_in_a_text_it_skips(text: str, xliff: bool, every_tag: bool) -> None:
    with mock.patch.object(markup, "_OUTER_NEEDS", ("",)):  # "" is in every text: nothing skipped
        scanned = markup.outer_spans(text, xliff, every_tag)
    assert markup.outer_spans(text, xliff, every_tag) == scanned


@given(TEXT | st.text(alphabet="ab -[<(:\n\tuUsageor", max_size=30))
@example("usage: git stash clear")
@example("git notes add [<options>]")
@example("Usage: %s disk")
@example("help (x|y)")
@example("plain words only")
@example("logout [n]")
@example("trap [arg] [sigspec ...]")
def test_the_synopsis_scan_finds_nothing_in_a_text_it_skips(text: str) -> None:
    with mock.patch.object(synopsis, "_may_hold", lambda _: True):  # nothing skipped
        scanned = synopsis.command_words(text)
    assert synopsis.command_words(text) == scanned


@given(TAGGED, st.integers(min_value=0, max_value=60), st.sets(st.sampled_from(["1", "23", "4"])))
@example('a<x id="1"/><x id="23"/>b', 24, {"23"})
def test_the_tag_before_is_the_one_ending_there(text: str, at: int, tokens: set[str]) -> None:
    at = min(at, len(text))
    previous = glue._BEFORE().search(text, 0, at)  # what was searched for from the text's start
    assert glue._token_before(text, at, tokens) == (previous is not None and previous.group(1) in tokens)


_PLAIN_GLUED_BEFORE = re.compile(r"(?:[\w=:\[(|]|>[,/|-]?)\Z")
_PLAIN_BESIDE_AFTER = re.compile(r"\A[,/|-]?<")
_APOSTROPHE = re.compile(r"\w'\w")


def _is_code_name_plainly(tag: str, text: str) -> bool:
    """What :class:`code_names.CodeNames` answers, each question asked of the whole text (n names: n squared)."""
    m = re.fullmatch(r"<([A-Za-z][\w.-]*)>", tag)
    if m is None:
        return False
    name = m.group(1)
    if "." in name:
        return True
    if name in code_names._KEYS or code_names._KEY_CHORD().fullmatch(name):
        return True
    for where in (found.start() for found in re.finditer(re.escape(tag), text)):
        before, after = text[:where], text[where + len(tag) :]
        plain_before, plain_after = _APOSTROPHE.sub("", before), _APOSTROPHE.sub("", after)
        quoted = any(plain_before.count(q) % 2 == 1 and q in plain_after for q in "'\"")
        if _PLAIN_GLUED_BEFORE.search(before) or _PLAIN_BESIDE_AFTER.match(after) or quoted:
            return False
    if name in code_names._EXPANSIONS:
        return True
    if re.search(rf"(?<![\w.])\.{re.escape(name)}\b", text):
        return True
    if not text.replace(tag, "").strip(" .,:;!?()\n\t\"'"):
        return False
    return code_names._USAGE().search(text) is None


_NAMES = ["<file>", "<a-b>", "<a->", "<vimrc>", "<sfile>", "<Enter>", "<n1>", "<x>"]


@given(
    st.lists(
        st.sampled_from([*EXAMPLES, *_NAMES, "'", '"', "don't", "-J", "=", ".vimrc", ".a-b", ".a-", "..x", "a.x", "é"])
        | st.text(alphabet="ab.-<>'\" ", max_size=4),
        max_size=8,
    ).map("".join)
)
@example("'git add <file>'")
@example("<start>,<end> <package>-<version>")
@example("it's <file>'s")
@example("see .vimrc and <vimrc>")
@example("<a-> .a-b and <a-b> .a-")
@example("(<Empty>).")
@example("Usage: cp <source> <dest>")
def test_a_name_is_judged_code_as_by_asking_the_whole_text_each_time(text: str) -> None:
    judge = code_names.CodeNames(text)
    for tag in {m.group() for m in re.finditer(r"<[A-Za-z][\w.-]*>", text)}:  # what outer_spans asks of
        assert judge(tag) == _is_code_name_plainly(tag, text), tag


@given(TEXT | st.text(alphabet="aZbYAB-/~.\\'() 1é_", max_size=12) | st.sampled_from(["PASV", "xPASV", "a PWD b"]))
@example("'''")
@example("a/.b")
@example("f()")
@example("-x")
@example("a-b")
@example("a~-b")
@example("a\\-b")
@example("a.-b")
@example("a/-b")
@example("a--b")
@example("é-b")
@example(" ~/x")
@example("conf.py")
@example("phpMyAdmin")
@example("OAuth")
@example("PASV")
@example("aPASV")
@example("PASVa")
def test_a_text_is_triggered_as_the_trigger_alternation_finds(text: str) -> None:
    assert protect_module._triggered(text) == (protect_module.TRIGGERS.search(text) is not None)


@given(TAGGED, st.sets(st.sampled_from([1, 4, 23])))
@example('a<x id="1"/>&amp;<x id="23"/>', {1, 23})
@example('a<x id="1"/><x id="4"/>', {1})
@example('<x id="1"/><x id="1">', {1})
@example('<x id="1"/><b>', {1})
def test_an_answer_cut_at_its_tags_as_sent_reads_as_the_tokenizer_reads_it(text: str, ids: set[int]) -> None:
    by_id = {ident: Placeholder(ident, f"%{ident}$s", "safe-printf") for ident in ids}
    try:
        tokens: object = protect_module._tokens(text, by_id)
    except protect_module.PlaceholderMismatch:
        tokens = None  # refused: the cut must leave it to the tokenizer
    assert protect_module._as_sent(text, by_id) in (tokens, None)
    if tokens is not None and "<" not in protect_module._CANONICAL().sub("", text):
        assert protect_module._as_sent(text, by_id) == tokens  # the usual answer takes the short way


@given(st.lists(st.sampled_from(EXAMPLES), max_size=8).map(" ".join), st.integers(0, 80), st.integers(0, 80))
@example("%s_%s.spl 50% %{name} %name% %Ln %1", 0, 40)
@example("a %(x)s b %% --verbose ~/.config", 2, 30)
def test_a_gap_without_a_percent_finds_what_every_kind_finds_there(text: str, start: int, length: int) -> None:
    for begin, end in ((0, len(text)), (min(start, len(text)), min(start + length, len(text)))):
        scanned = kinds.scanned_in(text)
        with mock.patch.object(kinds, "_PERCENT_KINDS", frozenset()):
            kinds._without_percent.cache_clear()
            every = kinds.spans(text, scanned, begin, end)
        kinds._without_percent.cache_clear()
        assert kinds.spans(text, scanned, begin, end) == every


@given(st.text(alphabet="aZbYAB_.:()é1 -", max_size=14) | TEXT)
@example("conf.py")
@example("phpMyAdmin")
@example("OAuth")
@example("a.é")
@example(".a")
@example("ABC")
def test_the_hint_of_a_name_is_found_where_its_alternation_finds_it(text: str) -> None:
    assert kinds._named(text) == (kinds._IDENTIFIER_HINT().search(text) is not None)
    assert (kinds.CAPITALS_HINT.search(text) is not None) == (re.search(r"[A-Z]{3}", text) is not None)


_STARTS = [":", "'", "`", "[", "]", "{", "%", "&", "<", "%<", "%>", "\n", "%<n>d", "<!--", "-->", "<?", "?>"]
_STARTS += ["<![CDATA[", "]]>", "&lt;a ", "&gt;", "&GT;"]


@given(st.lists(st.sampled_from([*EXAMPLES, *_STARTS]), max_size=8).map("".join) | TEXT)
@example("`code' and ''bold'' :help x<CR> %<PRIu64%> [b]x[/b] [[Page|x]] {{{1}}} &lt;b&gt;")
@example("''''' ]] [[ <!-- c --> <![CDATA[x]]> <?pi?>")
@example("%<n>d %<a %<b%> %<c\n%> %<%> %%<x%>")
@example("<!-- a <!-- b --> <!--> <? x <?y?> <?> <![CDATA[ a <![CDATA[b]]> &lt;a &lt;b&gt; &LT;c x &GT; &lt;d <e> &gt;")
def test_the_markup_alternation_finds_from_its_starting_characters_what_it_finds_everywhere(text: str) -> None:
    for xliff in (False, True):
        everywhere = [(m.span(), m.lastgroup) for m in markup._outer(xliff).finditer(text)]
        assert [(m.span(), m.lastgroup) for m in markup._outer_matches(text, xliff)] == everywhere
    for pattern in (markup._TOKEN(), markup._XML_TOKEN()):  # the tokens a reader sees, XLIFF's inline XML
        spans = [m.span() for m in pattern.finditer(text)]
        assert [m.span() for m in markup._matches(pattern, markup._LESS_THAN, text)] == spans


@given(TAGGED | TEXT)
@example("a < b")
@example("<")
def test_a_text_without_a_less_than_sign_is_the_one_the_tokenizer_finds_nothing_in(text: str) -> None:
    assert ("<" not in text) == (protect_module._TOKEN.search(text) is None)
