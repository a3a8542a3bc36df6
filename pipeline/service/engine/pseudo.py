"""The default engine: a deterministic pseudo-translation that keeps everything a pipeline must keep.

Scheme: the first letter of every word gets a combining accent that depends on the target
language only (``Hello world`` becomes ``Ḧello ẅorld`` for German, ``Ĥello ŵorld`` for French).
So the output is the same for the same input, differs from the input whenever it holds a
letter, and differs between target languages (variants included), while digits, punctuation,
whitespace (edges too) and the number of words stay as they were. A word that starts with a letter
and holds a digit is a code (``MP3``, ``A4``, ``XQ1Z``) and is kept, as real engines keep product
codes and placeholder-like tokens. That is the classic model (``latency_optimized``); the
next-gen model (``quality_optimized``, asked for or implied, see ``api.translate_params``) puts
the same accent on the *last* letter of every word instead (``Hellö worlḋ``-like), so a caller
can see which model served. On top of that:

- markup tokens and ignored content come back byte-identical (see ``markup``);
- every glossary source phrase found as a whole word, case-insensitively, is replaced by its
  target phrase verbatim (no accent), longest phrase first (see ``glossary_match``);
- a text whose source language has the target's base language (``EN`` to ``EN-GB``, ``DE`` to
  ``DE``) comes back unchanged;
- with a translation memory, a text whose best segment scores at or above the threshold comes
  back as that segment's target, verbatim (see ``engine.tm_match`` for the score);
- the configured rules of a style rule list that are mechanical punctuation rewrites (quotation
  marks, apostrophes, ellipses, spacing before ``; : ! ?``, dashes, periods in degrees, calendar
  era; see ``engine.style_apply``) are applied to the translated text, never to markup or ignored
  content.

Context, formality, instructions, the other configured rules and the model goal are accepted and
do not change the output. A request with a glossary or a memory is translated in a worker thread:
indexing a 10 MB dictionary for its first use takes a second, which the event loop must not wait.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence

from pipeline.service.engine import detect
from pipeline.service.engine.base import EngineRequest, Translation
from pipeline.service.engine.glossary_match import term_index
from pipeline.service.engine.markup import pieces, visible_text
from pipeline.service.engine.style_apply import apply as apply_style
from pipeline.service.languages import BETA, LANGUAGES, base_of

QUALITY = "quality_optimized"

#: One combining mark per language code of the table. The first 45 keep the marks the languages
#: of the original table always had; languages added later take the marks after them.
_MARKS = (
    "\u0308\u0301\u0302\u0303\u0304\u0306\u0307\u030a\u030b\u030c\u0300\u0311\u0323\u0324\u0325"
    "\u0326\u0327\u0328\u032d\u032e\u0330\u0331\u0305\u0309\u030d\u030e\u030f\u0310\u0312\u0313"
    "\u0314\u031b\u0329\u032a\u032c\u032f\u0332\u0333\u0334\u0335\u0336\u0338\u033d\u0346\u034a"
    "\u0315\u0316\u0317\u0318\u0319\u031a\u031c\u031d\u031e\u031f\u0320\u0321\u0322\u032b\u0339"
    "\u033a\u033b\u033c\u033e\u033f\u0340\u0341\u0342\u0343\u0344\u0345\u0347\u0348\u0349\u034b"
    "\u034c\u034d\u034e\u0350\u0351\u0352\u0353\u0354\u0355\u0356\u0357\u0358\u0359\u035a\u035b"
    "\u0363\u0364\u0365\u0366\u0367\u0368\u0369\u036a\u036b\u036c\u036d\u036e\u036f\u1dc0\u1dc1"
    "\u1dc2\u1dc3\u1dc4\u1dc5\u1dc6\u1dc7\u1dc8\u1dc9\u1dca\u1dcb\u1dcc\u1dcd\u1dce\u1dcf\u1dd0"
    "\u1dd1\u1dd2\u1dd3\u1dd4\u1dd5\u1dd6\u1dd7\u1dd8\u1dd9\u1dda"
)
_FIRST = ("de", "fr", "it", "es", "pt", "nl")
#: The original table: the stable languages and the two beta variants it already had.
_ORIGINAL = tuple(x.code.lower() for x in LANGUAGES if x.status != BETA or x.code in ("de-CH", "fr-CA"))
_ADDED = tuple(x.code.lower() for x in LANGUAGES if x.code.lower() not in _ORIGINAL)
_ORDER = (*_FIRST, *(code for code in (*_ORIGINAL, *_ADDED) if code not in _FIRST))
assert len(set(_MARKS)) == len(_MARKS) >= len(_ORDER)
MARK_BY_TARGET = {code.upper(): _MARKS[i] for i, code in enumerate(_ORDER)}

#: The first letter of a word (a letter not preceded by a letter): where the classic model marks.
_WORD_START = re.compile(r"(?<![^\W\d_])([^\W\d_])")
#: The last letter of a word (a letter not followed by a letter): where the next-gen model marks.
_WORD_END = re.compile(r"([^\W\d_])(?![^\W\d_])")
#: A run of letters and digits; one that starts with a letter and holds a digit is a code.
_WORD = re.compile(r"[^\W_]+")
_CODE = re.compile(r"[^\W\d_][^\W_]*\d")
#: A code anywhere in a text: a word start (no letter or digit before it), a letter, then a digit in the word.
_CODE_WORD = re.compile(r"(?<![^\W_])[^\W\d_][^\W_]*\d")


def _accent(text: str, mark: str, next_gen: bool = False) -> str:
    letter = _WORD_END if next_gen else _WORD_START
    if _CODE_WORD.search(text) is None:
        # No code to keep: marking the whole text at once marks each word as marking it alone would,
        # since a word's first (last) letter is one with no letter before (after) it either way.
        return letter.sub(lambda m: m.group() + mark, text)
    return _WORD.sub(lambda m: m.group() if _CODE.match(m.group()) else letter.sub(r"\1" + mark, m.group()), text)


def _translate_run(text: str, mark: str, request: EngineRequest) -> str:
    next_gen = request.model_type == QUALITY
    if request.glossary:
        return term_index(request.glossary).replace(text, lambda gap: _accent(gap, mark, next_gen))
    return _accent(text, mark, next_gen)


class PseudoEngine:
    """Deterministic pseudo-translation (see module docstring)."""

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        """One pseudo-translation per text."""
        if request.glossary or request.memory is not None:
            return await asyncio.to_thread(self._translate_all, request)
        return self._translate_all(request)

    def _translate_all(self, request: EngineRequest) -> list[Translation]:
        return [self.translate_one(text, request) for text in request.texts]

    def translate_one(self, text: str, request: EngineRequest) -> Translation:
        """Pseudo-translate one text of ``request``."""
        source = request.source_lang or detect.detect(visible_text(text, request.markup))
        if base_of(source) == base_of(request.target_lang):
            return Translation(text, source)
        memory = request.memory
        if memory is not None and base_of(source) == memory.source_lang:
            match = memory.best_match(text, request.memory_threshold)
            if match is not None:
                return Translation(match.target, source)
        mark = MARK_BY_TARGET[request.target_lang]
        return Translation(_translate_text(text, mark, request), source)


def _translate_text(text: str, mark: str, request: EngineRequest) -> str:
    """Translate the translatable runs, apply the style rules across them, keep the rest."""
    parts = list(pieces(text, request.markup))
    runs = [_translate_run(p.text, mark, request) for p in parts if p.translatable]
    styled = iter(apply_style(runs, request.style_rules, request.target_lang))
    return "".join(next(styled) if p.translatable else p.text for p in parts)
