"""Recovery schemes: each carries a segment's placeholders another way and decodes back to the canonical form."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from pipeline.placeholders.protect import protect
from pipeline.placeholders.schemes import RECOVERY, Scheme, applicable, decode, encode, request_params
from pipeline.run.gate import verify
from pipeline.run.window import Verdict
from pipeline.segments import Protected, Segment, SegmentKey


def admit(answer: str, protected: Protected, source: str, flags: Sequence[str] = ()) -> str | Verdict:
    """The gate's verdict on ``answer`` for a segment with ``source``: the text to write, or the Verdict."""
    verdict = verify(protected, answer, Segment(SegmentKey("t.po", 0), source, 1, tuple(flags)))
    return verdict.text if verdict.text is not None else verdict


SOURCE = "Hello %(name)s, you have <b>%(count)d</b> new messages & 2 alerts."
FLAGS = ("python-format",)


@pytest.mark.parametrize("scheme", list(Scheme))
def test_an_engine_that_keeps_everything_gets_the_source_back(scheme: Scheme) -> None:
    protected = protect(SOURCE, FLAGS)
    answers = encode(scheme, protected)
    assert admit(decode(scheme, protected, answers), protected, SOURCE, FLAGS) == SOURCE


@pytest.mark.parametrize("scheme", list(Scheme))
def test_the_placeholder_text_itself_is_never_sent(scheme: Scheme) -> None:
    sent = " ".join(encode(scheme, protect(SOURCE, FLAGS)))
    assert "%(name)s" not in sent and "%(count)d" not in sent and "<b>" not in sent


def test_each_scheme_sends_what_it_says() -> None:
    protected = protect(SOURCE, FLAGS)
    assert encode(Scheme.XML, protected) == encode(Scheme.XML_V2, protected) == (protected.text,)
    assert encode(Scheme.HTML, protected) == (
        'Hello <span translate="no" id="p1"></span>, you have <span translate="no" id="p2"></span>'
        '<span translate="no" id="p3"></span><span translate="no" id="p4"></span> new messages &amp; 2 alerts.',
    )
    assert encode(Scheme.TOKENS, protected) == ("Hello _XQ1_, you have _XQ2__XQ3__XQ4_ new messages & 2 alerts.",)
    assert encode(Scheme.PIECES, protected) == ("Hello", ", you have", "new messages & 2 alerts.")
    assert request_params(Scheme.XML_V2)["tag_handling_version"] == "v2"
    assert request_params(Scheme.HTML) == {"tag_handling": "html"}
    assert request_params(Scheme.TOKENS) == request_params(Scheme.PIECES) == {}


def test_pieces_are_translated_separately_and_put_back_in_source_order() -> None:
    protected = protect(SOURCE, FLAGS)
    answers = ("Hallo", ", Sie haben", "neue Nachrichten & 2 Hinweise.")
    assert admit(decode(Scheme.PIECES, protected, answers), protected, SOURCE, FLAGS) == (
        "Hallo %(name)s, Sie haben <b>%(count)d</b> neue Nachrichten & 2 Hinweise."
    )
    assert Scheme.PIECES.needs_review_note and Scheme.XML.needs_review_note is None


def test_html_answers_with_named_entities_decode_to_characters() -> None:
    protected = protect("Save %s now", ("c-format",))
    answer = 'Enregistrer<span translate="no" id="p1"></span>&nbsp;maintenant'
    assert admit(decode(Scheme.HTML, protected, (answer,)), protected, "Save %s now", ("c-format",)) == (
        "Enregistrer%s\u00a0maintenant"
    )


def test_damaged_answers_under_any_scheme_are_refused() -> None:
    protected = protect(SOURCE, FLAGS)
    damaged = {
        Scheme.XML: protected.text.replace('<x id="1"/>', ""),
        Scheme.HTML: encode(Scheme.HTML, protected)[0].replace('id="p2"', 'id="p7"'),
        Scheme.TOKENS: encode(Scheme.TOKENS, protected)[0].replace("_XQ1_", "_Xq1_"),
    }
    for scheme, answer in damaged.items():
        verdict = admit(decode(scheme, protected, (answer,)), protected, SOURCE, FLAGS)
        assert not isinstance(verdict, str), scheme


def test_schemes_that_cannot_carry_a_segment_are_skipped() -> None:
    assert not applicable(Scheme.XML_V2, protect("%s files", ("c-format",)), "latency_optimized")
    assert applicable(Scheme.XML_V2, protect("%s files", ("c-format",)), "quality_optimized")
    # A source's own token-like word is a name, protected: the tokens scheme carries it as a placeholder.
    source = protect("Code _XQ1_ is %s", ("c-format",))
    assert [ph.text for ph in source.placeholders] == ["_XQ1_", "%s"] and applicable(Scheme.TOKENS, source)
    assert decode(Scheme.TOKENS, source, encode(Scheme.TOKENS, source)) == source.text
    assert [s for s in RECOVERY if applicable(s, protect("No placeholders"))] == []


def test_a_text_with_more_pieces_than_a_request_holds_is_not_sent_in_pieces() -> None:
    from pipeline import protocol
    from pipeline.placeholders.protect import protect

    many = protect(" ".join(f"word{i} %s" for i in range(protocol.MAX_TEXTS_PER_REQUEST + 1)), ["c-format"])
    few = protect("one %s two %s", ["c-format"])
    assert not applicable(Scheme.PIECES, many) and applicable(Scheme.PIECES, few)
