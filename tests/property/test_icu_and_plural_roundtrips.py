"""Round trips: protect/restore over generated ICU messages and mixed placeholders; plural plans and assembly."""

from __future__ import annotations

import random
import re

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.placeholders import icu
from pipeline.placeholders.protect import PlaceholderMismatch, protect, restore
from pipeline.plural_rules import plural_rule_for
from pipeline.run.plurals import assemble, plan_unit

WORDS = st.sampled_from(
    [
        "file",
        "files",
        "He",
        "She",
        "a b",
        "it''s",
        "Wört",
        "日本",
        " ",
        "!",
        "<b>x</b>",
        "%s",
        "https://example.com",
        "42",
        "a@b.org",
    ]
)  # all valid inside ICU text
NAMES = st.sampled_from(["n", "count", "gender", "x_1", "0"])
SIMPLE = st.one_of(
    NAMES.map(lambda n: "{" + n + "}"),
    NAMES.map(lambda n: "{" + n + ", number}"),
    NAMES.map(lambda n: "{" + n + ", date, short}"),
    st.just("'{'"),
    st.just("'}'"),
)


def _complex(bodies: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    plural = st.tuples(
        NAMES,
        st.sampled_from(["plural", "selectordinal"]),
        st.sampled_from(["", "offset:1 "]),
        st.lists(st.tuples(st.sampled_from(["=0", "=1", "zero", "one", "two", "few", "many"]), bodies), max_size=3),
        bodies,
    )
    select = st.tuples(
        NAMES,
        st.just("select"),
        st.just(""),
        st.lists(st.tuples(st.sampled_from(["male", "female", "neutral-x"]), bodies), max_size=3),
        bodies,
    )

    def build(parts: tuple[str, str, str, list[tuple[str, str]], str]) -> str:
        name, kind, offset, cases, other = parts
        inner = " ".join(f"{key} {{{body}}}" for key, body in [*cases, ("other", other)])
        return f"{{{name}, {kind}, {offset}{inner}}}"

    return st.one_of(plural, select).map(build)


def _messages(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    return st.lists(st.one_of(WORDS, SIMPLE, st.just("#"), _complex(inner)), max_size=4).map("".join)


BODY = st.recursive(st.lists(st.one_of(WORDS, SIMPLE, st.just("#")), max_size=3).map("".join), _messages, max_leaves=12)
ICU_MESSAGE = st.tuples(
    st.lists(WORDS, max_size=2).map("".join),
    _complex(BODY),
    st.lists(st.one_of(WORDS, SIMPLE), max_size=2).map("".join),
).map("".join)


def _structure(text: str) -> list[str]:
    return [text[s.start : s.end].strip() for s in icu.spans(text) or () if s.kind in icu.STRUCTURE]


@settings(max_examples=150, deadline=None)
@given(ICU_MESSAGE)
def test_icu_messages_are_parsed_and_round_trip(message: str) -> None:
    if message.strip() != message:
        message = message.strip()
    protected = protect(message)
    assert restore(protected.text, protected) == message
    assert icu.spans(message) is not None


@settings(max_examples=150, deadline=None)
@given(ICU_MESSAGE)
def test_a_translation_of_the_bodies_keeps_the_structure(message: str) -> None:
    message = message.strip()
    protected = protect(message)
    translated = re.sub(
        r"(<x id=\"\d+\"/>)|([^<]+)",
        lambda m: m.group(1) or m.group(2).replace("file", "Datei").replace("He", "Er"),
        protected.text,
    )
    out = restore(translated, protected)
    assert icu.spans(out) is not None and _structure(out) == _structure(message)


PIECES = st.sampled_from(
    [
        "{n, plural, ",
        "one {",
        "other {",
        "male {",
        "}",
        "} ",
        "#",
        "'",
        "''",
        "'{'",
        "{name}",
        "{n, select, ",
        "=0 {",
        "offset:1 ",
        "word",
        " ",
        "%d",
        "<b>",
        "</b>",
        "{",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=14).map("".join), st.sampled_from([(), ("python-format",), ("c-format",)]))
def test_restore_of_protect_is_identity_with_icu_like_pieces(text: str, flags: tuple[str, ...]) -> None:
    protected = protect(text, flags)
    assert restore(protected.text, protected) == text


@settings(max_examples=150, deadline=None)
@given(ICU_MESSAGE, st.randoms(use_true_random=False))
def test_shuffled_structure_is_refused_or_still_well_formed(message: str, rnd: random.Random) -> None:
    message = message.strip()
    protected = protect(message)
    tags = re.findall(r'<x id="\d+"/>', protected.text)
    if len(tags) < 2:
        return
    shuffled = tags[:]
    rnd.shuffle(shuffled)
    it = iter(shuffled)
    translated = re.sub(r'<x id="\d+"/>', lambda m: next(it), protected.text)
    try:
        out = restore(translated, protected)
    except PlaceholderMismatch:
        return
    assert _structure(out) == _structure(message)  # only non-structural parts moved, within their cases


COUNTS = st.sampled_from(
    [("%d", ["c-format"]), ("%(count)d", ["python-format"]), ("{count}", ["python-brace-format"]), ("{n}", [])]
)
LANGS = st.sampled_from(["ja", "en", "fr", "ru", "pl", "cs", "sl", "ga", "cy", "ar", "lt", "ro", "mt", "br"])
NOUN = st.sampled_from(["file", "day", "new message", "user in %s", "item of 5", "thumbnail"])


@settings(max_examples=150, deadline=None)
@given(COUNTS, LANGS, NOUN, st.booleans())
def test_identity_translation_gives_back_every_form(
    count: tuple[str, tuple[str, ...]], lang: str, noun: str, singular_has_count: bool
) -> None:
    placeholder, flags = count
    if "%s" in noun and "c-format" not in flags:
        noun = noun.replace(" in %s", "")
    singular = f"{placeholder} {noun}" if singular_has_count else f"One {noun}"
    plural = f"{placeholder} {noun}s"
    rule = plural_rule_for(lang)
    assert rule is not None
    plan = plan_unit((singular, plural), flags, rule.nplurals, rule)
    got = assemble(plan, plan.texts.get, flags)
    assert got.texts is not None and len(got.texts) == rule.nplurals
    assert set(got.texts) <= {singular, plural}
    assert got.warnings == ()
    if rule.nplurals > 2:  # every form not used only for 1 was made from a representative number
        assert rule is not None
        assert sum(f.number is not None for f in plan.forms) >= rule.nplurals - 1
