"""Ways of showing the engine a segment's placeholders, for recovery when a translation fails the gate.

Real engines damage protected tags for some languages (moved to the sentence start, dropped,
duplicated, swapped). A segment whose translation the gate refuses for a reason that concerns
its placeholders is sent again, showing them another way; each scheme differs in kind:

``xml``      ``<x id="N"/>`` with ``tag_handling=xml`` and ``ignore_tags=x`` (every first attempt);
``xml-v2``   the same tags under the next-generation tag handling (``tag_handling_version=v2``);
``html``     empty non-translatable spans ``<span translate="no" id="pN"></span>`` with
             ``tag_handling=html``;
``tokens``   opaque identifiers ``_XQN_`` in plain text, no tag handling at all (the underscores
             keep a neighbouring word apart from the token);
``pieces``   the text between the placeholders translated piece by piece, placeholders put back in
             source order: always well-formed, but the word order is the source's, so the result
             stays marked for review with a note.

Every scheme decodes its answers back to the canonical form (``<x id="N"/>`` tags in XML-escaped
text), so the one gate (:func:`pipeline.run.gate.verify`) judges every attempt alike. The placeholder
text itself is never sent under any scheme.
"""

from __future__ import annotations

import enum
import html
import re
from collections.abc import Sequence
from typing import Any

from pipeline import protocol
from pipeline.patterns import lazy_regex
from pipeline.placeholders.protect import TAG
from pipeline.segments import Protected


class Scheme(enum.Enum):
    """How a request shows the engine the placeholders, in the order recovery tries them."""

    XML = "xml"
    XML_V2 = "xml-v2"
    HTML = "html"
    TOKENS = "tokens"
    PIECES = "pieces"

    @property
    def needs_review_note(self) -> str | None:
        """The note a translation made this way carries (it forces the needs-review mark), or None."""
        if self is Scheme.PIECES:
            return "translated in pieces between its placeholders (the engine kept damaging them): check the word order"
        return None


#: Recovery order after the first attempt.
RECOVERY = (Scheme.XML_V2, Scheme.HTML, Scheme.TOKENS, Scheme.PIECES)

_CANONICAL = lazy_regex(rf"""<{TAG}\s+id\s*=\s*["'](\d+)["']\s*/>""")
_SPAN = lazy_regex(r"""<span\s+translate\s*=\s*["']no["']\s+id\s*=\s*["']p(\d+)["']\s*>\s*</span\s*>""", re.I)
_TOKEN = lazy_regex(r"_XQ(\d+)_")
_LETTER = lazy_regex(r"[^\W\d_]")


def request_params(scheme: Scheme) -> dict[str, Any]:
    """The translate parameters that carry ``scheme`` (merged over the run's own)."""
    if scheme is Scheme.XML:
        return {"tag_handling": "xml", "ignore_tags": [TAG]}
    if scheme is Scheme.XML_V2:
        return {"tag_handling": "xml", "ignore_tags": [TAG], "tag_handling_version": "v2"}
    if scheme is Scheme.HTML:
        return {"tag_handling": "html"}
    return {}  # tokens and pieces: plain text


def applicable(scheme: Scheme, protected: Protected, model_type: str | None = None) -> bool:
    """Whether ``scheme`` can carry ``protected`` (and could differ from what was already tried)."""
    if not protected.placeholders:
        return scheme is Scheme.XML
    if scheme is Scheme.XML_V2:
        return model_type != "latency_optimized"  # v2 needs the next-generation models
    if scheme is Scheme.TOKENS:
        return not _TOKEN().search(_unescape(protected.text))  # the source must not hold such words itself
    if scheme is Scheme.PIECES:  # every piece of a text goes in one request
        return len(encode(scheme, protected)) <= protocol.MAX_TEXTS_PER_REQUEST
    return True


def encode(scheme: Scheme, protected: Protected) -> tuple[str, ...]:
    """The texts to send for ``protected`` (several for ``pieces``: only those with letters)."""
    if scheme in (Scheme.XML, Scheme.XML_V2):
        return (protected.text,)
    if scheme is Scheme.HTML:
        return (_CANONICAL().sub(lambda m: f'<span translate="no" id="p{m.group(1)}"></span>', protected.text),)
    if scheme is Scheme.TOKENS:
        return (_unescape(_CANONICAL().sub(lambda m: f"_XQ{m.group(1)}_", protected.text)),)
    return tuple(core for _, core, _ in _pieces(protected.text) if core)


def decode(scheme: Scheme, protected: Protected, answers: Sequence[str]) -> str:
    """The canonical form of the engine's ``answers`` to :func:`encode`'s texts, for the gate."""
    if scheme in (Scheme.XML, Scheme.XML_V2):
        return answers[0]
    if scheme is Scheme.HTML:
        # HTML answers may spell characters as named entities (&nbsp;): back to characters, then XML.
        parts = _SPAN().split(answers[0])  # text, id, text, id, ..., text
        return "".join(
            f'<{TAG} id="{part}"/>' if odd else _escape(html.unescape(part))
            for odd, part in ((i % 2 == 1, p) for i, p in enumerate(parts))
        )
    if scheme is Scheme.TOKENS:
        return _TOKEN().sub(lambda m: f'<{TAG} id="{m.group(1)}"/>', _escape(answers[0]))
    out: list[str] = []
    translated = iter(answers)
    for lead, core, trail in _pieces(protected.text):
        out.append(lead + (_escape(next(translated).strip()) if core else "") + trail)
    return "".join(out)


def _pieces(canonical: str) -> list[tuple[str, str, str]]:
    """The canonical text cut at its tags: ``(leading, core to translate, trailing)`` per run.

    A tag is kept whole in ``leading``/``trailing``; a run without letters is kept verbatim (its
    core is empty), so digits and punctuation between placeholders are never sent.
    """
    runs: list[tuple[str, str, str]] = []
    last = 0
    for match in [*_CANONICAL().finditer(canonical), None]:
        end = match.start() if match else len(canonical)
        text = canonical[last:end]
        tag = match.group() if match else ""
        plain = _unescape(text)
        if _LETTER().search(plain):
            core = plain.strip()
            start = plain.index(core)
            runs.append((_escape(plain[:start]), core, _escape(plain[start + len(core) :]) + tag))
        else:
            runs.append((text + tag, "", ""))
        last = match.end() if match else len(canonical)
    return runs


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _unescape(text: str) -> str:
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")
