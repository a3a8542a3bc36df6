"""Custom instructions, followed on top of another engine's output: a visible variant and length limits.

A real engine follows ``custom_instructions`` (and the instructions of a style rule list) by
writing differently. The pseudo engine cannot follow "Use informal language", but a caller must
see that instructions reached the engine, and one kind of instruction it can honour exactly:

1. **Variant.** With any instructions, the first letter of every word of the translation is
   replaced by another letter of the target language's own alphabet (:func:`pipeline.locales.alphabet`):
   a letter of the alphabet moves on by a number of places a hash of the instructions picks, any
   other letter (a memory match's) becomes the letter that hash picks. So the same instructions
   always give the same text, other instructions most likely another one, and the text holds
   only letters the language's legacy charset has (ISO-8859-2 for Polish, EUC-JP for Japanese),
   as the engine's plain output does. Left alone: markup and ignored content (``engine.markup``),
   codes such as ``MP3`` (kept as the pseudo engine keeps them), the target phrases a glossary
   put in (they stay verbatim), and a text the engine passed through unchanged because its
   language is the target's.
2. **Length.** An instruction asking for a maximum length ("at most N characters", "no more than
   N characters", "maximum N characters", "max. N characters", "shorter than N characters"; any
   case) makes every translation at most
   that many characters (code points, markup included; "shorter than N" means N - 1; the smallest
   limit of several wins). Words are dropped from the end; markup and ignored content are never
   cut, so the text stays well-formed; the text's leading and trailing whitespace is kept while
   it fits; a first word longer than the room left is cut between characters (never between a
   letter and its combining marks). When the markup alone is longer than the limit, the answer
   is the markup with no text. This applies to every translation, memory matches included.

:class:`InstructionFollowingEngine` applies both after the engine it wraps (the service wraps the
pseudo engine; an engine given in the configuration follows instructions itself).
"""

import asyncio
import functools
import hashlib
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import NamedTuple

from pipeline.alphabets import alphabet
from pipeline.patterns import lazy_regex
from pipeline.service.engine.base import Engine, EngineRequest, MarkupOptions, Translation
from pipeline.service.engine.glossary_match import term_index
from pipeline.service.engine.markup import pieces
from pipeline.service.languages import base_of

_LIMIT = lazy_regex(
    r"""(?ix)
    \b(?P<kind>
        at\s+most | no\s+more\s+than
      | (?:a\s+)?max(?:imum|\.)?(?:\s+of)?    # maximum, a maximum of, max., max
      | shorter\s+than
    )
    \s+(?P<number>\d{1,3}(?:,\d{3})+|\d+)     # 40, 1,000
    \s*(?:characters?|chars?)\b
    """
)
#: "shorter than N" allows N - 1 characters.
_STRICT = "shorter"
_TOKENS = lazy_regex(r"\s+|\S+")


class Instructions(NamedTuple):
    """What a request's instructions ask of the engine here: the variant's key and a length limit."""

    key: int | None  # picks the variant's letters; None without instructions
    limit: int | None


@functools.lru_cache(maxsize=256)
def read(instructions: tuple[str, ...]) -> Instructions:
    """The variant's key (None without instructions) and the smallest length limit asked for (or None)."""
    if not instructions:
        return Instructions(None, None)
    digest = hashlib.sha256("\x1e".join(instructions).encode("utf-8")).digest()
    limits = [_limit(m) for text in instructions for m in _LIMIT().finditer(text)]
    return Instructions(int.from_bytes(digest[:4], "big"), min(limits) if limits else None)


def _limit(match: re.Match[str]) -> int:
    number = int(match.group("number").replace(",", ""))
    strict = match.group("kind").lower().startswith(_STRICT)
    return max(number - 1, 0) if strict else number


def _is_mark(char: str) -> bool:
    return unicodedata.category(char).startswith("M")


def _words(text: str) -> Iterable[tuple[int, int]]:
    """``(start, end)`` of each word: a letter or digit, then letters, digits and combining marks."""
    position, size = 0, len(text)
    while position < size:
        if not text[position].isalnum():
            position += 1
            continue
        end = position + 1
        while end < size and (text[end].isalnum() or _is_mark(text[end])):
            end += 1
        yield position, end
        position = end


class Variant(NamedTuple):
    """How the variant of one key and target rewrites a word's first letter: within the target's alphabet."""

    cycle: str  # the alphabet's letters (lower case where the script has case), each once
    shift: int  # places a letter of ``cycle`` moves on: never 0, never the whole cycle
    other: str  # what a letter outside ``cycle`` becomes
    finish: Callable[[str], str]  # the script's end-of-word forms (Hebrew finals)

    def first_letter(self, letter: str) -> str:
        """``letter`` replaced by another letter of the alphabet, in its case where the script has one."""
        lower = letter.lower()
        at = self.cycle.find(lower) if len(lower) == 1 else -1
        new = self.cycle[(at + self.shift) % len(self.cycle)] if at >= 0 else self.other
        upper = new.upper()
        return upper if letter != lower and len(upper) == 1 else new


@functools.lru_cache(maxsize=256)
def variant(key: int, target: str) -> Variant:
    """The variant ``key`` (:attr:`Instructions.key`) gives in ``target``'s alphabet (a service target code)."""
    letters = alphabet(target)
    cycle = "".join(dict.fromkeys(letters.table))
    return Variant(cycle, 1 + key % (len(cycle) - 1), cycle[key % len(cycle)], letters.finish_word)


def _vary_word(word: str, how: Variant) -> str:
    first = next((i for i, char in enumerate(word) if char.isalpha()), None)
    if first is None or (first == 0 and any(char.isdigit() for char in word)):
        return word  # no letter, or a code (a letter first, a digit inside): kept as the engine keeps it
    end = first + 1
    while end < len(word) and _is_mark(word[end]):
        end += 1  # the letter's own marks go with it: on the new letter they could make one no charset holds
    return how.finish(word[:first] + how.first_letter(word[first]) + word[end:])


def _protected(text: str, phrases: frozenset[str]) -> list[tuple[int, int]]:
    spans = []
    for phrase in phrases:
        start = text.find(phrase)
        while start >= 0:
            spans.append((start, start + len(phrase)))
            start = text.find(phrase, start + len(phrase))
    return spans


def vary(text: str, how: Variant, markup: MarkupOptions | None, keep: frozenset[str] = frozenset()) -> str:
    """``text`` with the first letter of each word outside markup and the ``keep`` phrases rewritten ``how``."""
    out = []
    for piece in pieces(text, markup):
        if not piece.translatable:
            out.append(piece.text)
            continue
        run, spans, done = piece.text, _protected(piece.text, keep), 0
        for start, end in _words(run):
            if any(s < end and start < e for s, e in spans):
                continue
            out.append(run[done:start])
            out.append(_vary_word(run[start:end], how))
            done = end
        out.append(run[done:])
    return "".join(out)


def shorten(text: str, limit: int, markup: MarkupOptions | None) -> str:
    """``text`` cut to at most ``limit`` characters, markup and ignored content kept whole (see module docstring)."""
    if len(text) <= limit:
        return text
    parts = list(pieces(text, markup))
    room = max(limit - sum(len(p.text) for p in parts if not p.translatable), 0)
    runs = [p.text for p in parts if p.translatable]
    if not runs:
        return text
    lead = runs[0][: len(runs[0]) - len(runs[0].lstrip())] if parts[0].translatable else ""
    trail = runs[-1][len(runs[-1].rstrip()) :] if parts[-1].translatable else ""
    if len(runs) == 1 and lead == runs[0]:
        trail = ""  # a run of whitespace only: its two edges are the same characters
    runs[0] = runs[0][len(lead) :]
    runs[-1] = runs[-1][: len(runs[-1]) - len(trail)]
    if len(lead) + len(trail) > room:
        lead = trail = ""
    cut = _keep_from_start(runs, room - len(lead) - len(trail))
    cut[0] = lead + cut[0]
    cut[-1] += trail
    kept = iter(cut)
    return "".join(next(kept) if p.translatable else p.text for p in parts)


def _keep_from_start(runs: Sequence[str], room: int) -> list[str]:
    """The runs with whole words kept from the start while they fit in ``room`` characters in all."""
    out = ["" for _ in runs]
    any_word = False
    for index, run in enumerate(runs):
        pending = ""
        for token in _TOKENS().findall(run):
            if token.isspace():
                pending += token
                continue
            if len(pending) + len(token) <= room:
                out[index] += pending + token
                room -= len(pending) + len(token)
                pending, any_word = "", True
                continue
            if not any_word and room > len(pending):
                out[index] += pending + _cut_word(token, room - len(pending))
            return out
        if pending and index < len(runs) - 1 and len(pending) <= room:
            out[index] += pending  # space before the markup that follows; the next word may still fit
            room -= len(pending)
    return out


def _cut_word(word: str, size: int) -> str:
    end = size
    while 0 < end < len(word) and _is_mark(word[end]):
        end -= 1
    return word[:end]


def glossary_targets(source: str, request: EngineRequest) -> frozenset[str]:
    """The glossary target phrases the engine put into the translation of ``source``."""
    if not request.glossary:
        return frozenset()
    index = term_index(request.glossary)
    found: set[str] = set()
    for piece in pieces(source, request.markup):
        if piece.translatable:
            found |= index.targets_in(piece.text)
    return frozenset(found)


def follow(translation: Translation, source: str, request: EngineRequest) -> Translation:
    """``translation`` of ``source`` with the request's instructions followed (see module docstring)."""
    asked = read(request.instructions)
    text = translation.text
    translated = base_of(translation.detected_source_language) != base_of(request.target_lang)
    if asked.key is not None and translated:
        text = vary(text, variant(asked.key, request.target_lang), request.markup, glossary_targets(source, request))
    if asked.limit is not None:
        text = shorten(text, asked.limit, request.markup)
    return translation if text == translation.text else Translation(text, translation.detected_source_language)


class InstructionFollowingEngine:
    """An :class:`~pipeline.service.engine.base.Engine` that follows instructions on top of ``inner``'s output."""

    def __init__(self, inner: Engine) -> None:
        self.inner = inner

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        """``inner``'s translations with the request's instructions followed."""
        translations = await self.inner.translate(request)
        if not request.instructions:
            return translations
        if request.glossary:  # finding the glossary's phrases again: a worker thread, as the engine did
            return await asyncio.to_thread(_follow_all, translations, request)
        return _follow_all(translations, request)


def _follow_all(translations: Sequence[Translation], request: EngineRequest) -> list[Translation]:
    return [follow(t, text, request) for t, text in zip(translations, request.texts, strict=True)]
