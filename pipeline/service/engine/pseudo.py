"""The default engine: a deterministic pseudo-translation, in the target language's own letters,
that keeps everything a pipeline must keep.

Scheme: every letter of every word is replaced through the target language's table
(:mod:`pipeline.locales`): Latin-script languages get their own letters put in (``Hello
world`` becomes ``Hellö wörld`` in German, ``Hęłłó wórłd`` in Polish, ``Hallu wurld`` in English,
whose vowels are swapped), other scripts a transliteration (``Хелло ворлд`` in Russian, Hebrew
letters with their end-of-word forms, katakana in Japanese, Hangul, Han characters, Thai...). A
letter with an accent counts as its base letter; a letter of another script stands for the basic
letter its code point picks, so any source comes out in the target's script. Case is kept where
the script has it; combining marks inside a word are dropped. A word the table leaves as it was
(``by`` in Polish) gets the table's signature letter after it. So the output is the same for the
same input, differs from the input whenever it holds a letter, differs between target languages
(variants included: no two share a table), holds only letters the language's legacy charset has
(ISO-8859-2 for Polish, EUC-JP for Japanese; see :mod:`pipeline.locales`), and a right-to-left
target comes back right-to-left; digits, punctuation, whitespace (edges too) and the number of
words stay as they were. A word that starts with a letter and holds a digit is a code (``MP3``,
``A4``, ``XQ1Z``) and is kept, as real engines keep product codes and placeholder-like tokens.
That is the classic model (``latency_optimized``); the next-gen model (``quality_optimized``,
asked for or implied, see ``api.translate_params``) reads each letter as the one after it in
``a``-``z`` (``Hello`` -> German ``Ifmmp``-like, in the same letters), so a caller can see which
model served. On top of that:

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
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from pipeline.alphabets import Alphabet, alphabet
from pipeline.patterns import lazy_regex
from pipeline.service.engine import detect
from pipeline.service.engine.base import EngineRequest, Translation
from pipeline.service.engine.glossary_match import term_index
from pipeline.service.engine.markup import REFERENCE, pieces, visible_text
from pipeline.service.engine.style_apply import apply as apply_style
from pipeline.service.languages import base_of

QUALITY = "quality_optimized"
_LATIN = "abcdefghijklmnopqrstuvwxyz"
#: Latin letters that do not decompose into a basic letter and a mark, and the letter they count as.
_FOLD = dict(zip("ßæøłđðþœıŋ", "saoldttoin", strict=True))

#: A word: a letter or digit, then letters, digits and the combining marks on them. Compiled for the first
#: text that is not ASCII (0.2 ms: Unicode classes and marks); most texts a catalog sends are ASCII.
_WORD_SYNTAX = r"[^\W_](?:[^\W_]|[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])*"
_WORD = lazy_regex(_WORD_SYNTAX)
#: A word of an ASCII text: the same words, found three times as fast (no Unicode classes, no marks).
_ASCII_WORD = re.compile(r"[A-Za-z0-9]+")
#: A word that starts with a letter and holds a digit is a code, kept as it is.
_CODE = re.compile(r"[^\W\d_][^\W_]*\d")


def mark_of(target: str) -> str:
    """A letter of ``target``'s alphabet: what a mangling fault (``service.testing``) puts into an attribute."""
    # On demand, not a table of every target made at import: an app seldom mangles, never for all of them.
    return alphabet(target).signature


class _Letters(dict[int, str]):
    """``str.translate`` table of one alphabet and model: filled as letters are met."""

    def __init__(self, table: Alphabet, shift: int) -> None:
        super().__init__()
        self._table, self._shift = table, shift

    def __missing__(self, key: int) -> str:
        char = chr(key)
        if unicodedata.combining(char):
            value = ""
        elif not char.isalpha():
            value = char
        else:
            lower = char.lower()
            base = _FOLD.get(lower) or (unicodedata.normalize("NFD", lower)[0] if len(lower) == 1 else lower)
            index = _LATIN.find(base)
            letter = self._table.table[((index if index >= 0 else key) + self._shift) % 26]
            upper = letter.upper()
            value = upper if char != lower and len(upper) == 1 else letter
        _LETTERS_HELD.keep(self, key, value)
        return value


#: A long-running service answers anyone, so what the word memos hold is bounded: a word longer than
#: ``_KEPT_WORD`` letters is worked out each time (interface words are shorter; a hostile one can be a
#: whole request), and past ``_MEMO_WORDS`` words kept over all alphabets and models every memo
#: starts again: hostile words fill them to some 35 MB. So do the letter tables past ``_MEMO_LETTERS``
#: letters (Unicode has some 140,000: every one of them in every table would be gigabytes).
_KEPT_WORD, _MEMO_WORDS, _MEMO_LETTERS = 32, 1 << 16, 1 << 16


class _Held:
    """How many entries memos of one kind hold together: past ``most``, every one of them starts again."""

    def __init__(self, most: int, memos: Callable[[], Iterable[dict[Any, str]]]) -> None:
        self.most, self.memos, self.count = most, memos, 0

    def keep(self, memo: dict[Any, str], key: Any, value: str) -> None:
        """``memo[key] = value``, after emptying every memo of the kind when they hold ``most`` already."""
        if self.count >= self.most:
            for each in list(self.memos()):
                each.clear()
            self.count = 0
        memo[key] = value
        self.count += 1


class _Words(dict[str, str]):
    """Each word's pseudo-translation for one alphabet and model, worked out the first time it is met.

    Interface strings repeat their words (Django's catalogs: 4,453 words, 1,136 distinct):
    the letters of a word met before are not looked at again.
    """

    def __init__(self, code: str, shift: int) -> None:
        super().__init__()
        self.letters, self._alphabet = _Letters(alphabet(code), shift), alphabet(code)

    def __missing__(self, original: str) -> str:
        if _CODE.match(original):
            out = original
        else:
            out = original.translate(self.letters)
            if out == original and not original.isdigit():  # digits alone are a number, kept
                out += self._alphabet.signature
            out = self._alphabet.finish_word(out)
        if len(original) <= _KEPT_WORD:
            _WORDS_HELD.keep(self, original, out)
        return out

    def of(self, found: re.Match[str]) -> str:
        """The pseudo-translation of the word ``found`` (a ``re.sub`` replacement)."""
        return self[found.group()]


#: Per alphabet code and model, its memo; and how many words, and letters, they hold together.
_TABLES: dict[tuple[str, bool], _Words] = {}
_WORDS_HELD = _Held(_MEMO_WORDS, _TABLES.values)
_LETTERS_HELD = _Held(_MEMO_LETTERS, lambda: (words.letters for words in _TABLES.values()))


def _words(code: str, next_gen: bool) -> _Words:
    memo = _TABLES.get((code, next_gen))
    if memo is None:  # one per target language and model: their number is bounded by the language list
        memo = _TABLES[code, next_gen] = _Words(code, 1 if next_gen else 0)
    return memo


def transliterate(text: str, target: str, next_gen: bool = False) -> str:
    """``text`` in ``target``'s letters, word by word (codes kept; see the module docstring)."""
    return (_ASCII_WORD if text.isascii() else _WORD()).sub(_words(target, next_gen).of, text)


def _translate_run(text: str, request: EngineRequest) -> str:
    next_gen = request.model_type == QUALITY
    target = request.target_lang
    if request.glossary:
        return term_index(request.glossary).replace(text, lambda gap: transliterate(gap, target, next_gen))
    return transliterate(text, target, next_gen)


class PseudoEngine:
    """Deterministic pseudo-translation (see module docstring)."""

    async def translate(self, request: EngineRequest) -> Sequence[Translation]:
        """One pseudo-translation per text."""
        if request.glossary or request.memory is not None:
            return await asyncio.to_thread(self._translate_all, request)
        return self._translate_all(request)

    def _translate_all(self, request: EngineRequest) -> list[Translation]:
        source = request.source_lang
        if source is None or request.memory is not None:  # decided text by text
            return [self.translate_one(text, request) for text in request.texts]
        if base_of(source) == base_of(request.target_lang):
            return [Translation(text, source) for text in request.texts]
        return [Translation(_translate_text(text, request), source) for text in request.texts]

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
        return Translation(_translate_text(text, request), source)


#: What a text that a pipeline sent holds besides words: its placeholders' tags and character references,
#: kept whole; a text with any other "<" (markup, a comment) is cut into pieces by ``markup`` instead.
_KEPT = rf'(?P<kept><x id="[0-9]+"/>|{REFERENCE})'
_OTHER_MARKUP = lazy_regex(r'<(?!x id="[0-9]+"/>)')
_KEPT_OR_WORD = lazy_regex(f"{_KEPT}|{_WORD_SYNTAX}")
_KEPT_OR_ASCII_WORD = lazy_regex(f"{_KEPT}|{_ASCII_WORD.pattern}")


def _translate_text(text: str, request: EngineRequest) -> str:
    """Translate the translatable runs, apply the style rules across them, keep the rest."""
    tokens = request.markup is not None and ("<" in text or "&" in text)  # a text without is one run
    if tokens and not request.glossary and not request.style_rules and _OTHER_MARKUP().search(text) is None:
        # The usual text sent with placeholders: one pass, the tokens kept and the words translated.
        words = _words(request.target_lang, request.model_type == QUALITY)
        return (_KEPT_OR_ASCII_WORD() if text.isascii() else _KEPT_OR_WORD()).sub(
            lambda m: words[m.group()] if m.lastgroup is None else m.group(), text
        )
    parts = list(pieces(text, request.markup))
    if not request.style_rules:  # the usual request: each run on its own
        return "".join(_translate_run(p.text, request) if p.translatable else p.text for p in parts)
    runs = [_translate_run(p.text, request) for p in parts if p.translatable]
    styled = iter(apply_style(runs, request.style_rules, request.target_lang))
    return "".join(next(styled) if p.translatable else p.text for p in parts)
