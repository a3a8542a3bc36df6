"""Identity: two sources that protect to the same text share one answer, yet each gets its own placeholders.

Nothing keyed by text alone decides which placeholders go where (the "Badge layout" defect: a
python-format and a python-brace-format entry protected alike, and the brace entry got ``%(name)s``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from hypothesis import assume, given
from hypothesis import strategies as st

from pipeline.placeholders.protect import protect
from pipeline.run.gate import verify
from pipeline.run.window import Verdict
from pipeline.segments import Protected, Segment, SegmentKey


def admit(answer: str, protected: Protected, source: str, flags: Sequence[str] = ()) -> str | Verdict:
    """The gate's verdict on ``answer`` for a segment with ``source``: the text to write, or the Verdict."""
    verdict = verify(protected, answer, Segment(SegmentKey("t.po", 0), source, 1, tuple(flags)))
    return verdict.text if verdict.text is not None else verdict


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
            "no-c-format",
        ]
    ),
    max_size=2,
    unique=True,
)
POOL = [
    "%s",
    "%d",
    "%(name)s",
    "%1$s",
    "{}",
    "{0}",
    "{count}",
    "{name!r:>10}",
    "<b>",
    "</b>",
    "&amp;",
    "https://example.com/a",
    "%{n}",
    "${HOME}",
    "%L1",
    "%name%",
]


def _whole(flags: list[str]) -> list[str]:
    """The pool's placeholders that protect to exactly one tag under ``flags``."""
    return [p for p in POOL if protect(p, flags).text == '<x id="1"/>']


WORDS = st.lists(
    st.sampled_from(["Badge", "layout:", "files", "of", "Wört", "日本", "done", "."]), min_size=1, max_size=4
).map(" ".join)


def _build(words: list[str], placeholders: list[str]) -> str:
    return "".join(w + " " + p + " " for w, p in zip(words, placeholders, strict=False)) + words[-1]


@given(st.lists(WORDS, min_size=2, max_size=4), st.data(), FLAGS, FLAGS)
def test_each_source_gets_its_own_placeholders_back(
    words: list[str], data: st.DataObject, flags_a: list[str], flags_b: list[str]
) -> None:
    count = len(words) - 1
    first = data.draw(st.lists(st.sampled_from(_whole(flags_a)), min_size=count, max_size=count))
    second = data.draw(st.lists(st.sampled_from(_whole(flags_b)), min_size=count, max_size=count))
    source_a, source_b = _build(words, first), _build(words, second)
    protected_a, protected_b = protect(source_a, flags_a), protect(source_b, flags_b)
    assume(protected_a.text == protected_b.text and source_a != source_b)
    # One answer for the shared text, as the service gives it: the words changed, the tags kept.
    answer = re.sub(r"(?<![<\w])([A-Za-z]+)(?![^<]*/>)", lambda m: m.group(1).upper(), protected_a.text)
    restored_a = admit(answer, protected_a, source_a, flags_a)
    restored_b = admit(answer, protected_b, source_b, flags_b)
    assert isinstance(restored_a, str) and isinstance(restored_b, str)
    assert [ph.text for ph in protect(restored_a, flags_a).placeholders] == [ph.text for ph in protected_a.placeholders]
    assert [ph.text for ph in protect(restored_b, flags_b).placeholders] == [ph.text for ph in protected_b.placeholders]


def test_badge_layout_pair_each_gets_its_own_field() -> None:
    printf, brace = "Badge layout: %(name)s", "Badge layout: {}"
    p_printf, p_brace = protect(printf, ("python-format",)), protect(brace, ("python-brace-format",))
    assert p_printf.text == p_brace.text
    answer = p_printf.text.replace("Badge layout", "Abzeichen-Layout")
    assert admit(answer, p_printf, printf, ("python-format",)) == "Abzeichen-Layout: %(name)s"
    assert admit(answer, p_brace, brace, ("python-brace-format",)) == "Abzeichen-Layout: {}"
    # The defect itself: the printf segment's restoration offered for the brace entry is refused.
    refusal = admit(answer, p_printf, brace, ("python-brace-format",))
    # "{}" is no valid brace format, so %(name)s is a placeholder of it too, and one it lacks.
    assert not isinstance(refusal, str) and refusal.problem == "placeholder '%(name)s' not in the source"
