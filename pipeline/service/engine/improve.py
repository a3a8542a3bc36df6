"""The local Write engine: deterministic, honest corrections only (no rewording).

A correction is made only where the rule is mechanical and the language's conventions agree,
so the engine never invents meaning. In order:

1. repeated spaces or tabs between two non-blank characters become one space (indentation at a
   line start and line breaks are kept);
2. a word written twice in a row (``the the``) loses its second copy, except pairs that are
   grammatical in the language (``had had``, ``that that``; ``die die``; ``nous nous`` ...);
   this one runs last, after rule 5, so that a sentence-initial ``the The`` counts too;
3. straight quotes become the language's typographic quotes when they pair up in the text
   (``“…”`` in English, ``„…“`` in German, ``« … »`` in French, ``«…»`` in Spanish, Italian and
   European Portuguese, ``「…」`` in Japanese), and a straight apostrophe inside a word becomes
   ``’`` in the languages that write it so;
4. spacing around punctuation: no space before ``, . ; : ! ?`` and a space after ``, ; ! ?``
   (and after ``:`` or ``.`` between two words, so ``10:30``, ``3.14``, ``file.txt`` and URLs
   stay as they are); French puts a narrow no-break space (U+202F) before ``; : ! ?`` and
   inside guillemets instead;
5. a sentence starting with an all-lower-case word gets a capital (at the start of the text and
   after ``. ! ?``); abbreviations (``e.g.``, ``z. B.``, ``etc.``, single letters) do not end
   a sentence, and words such as ``iPhone``, URLs or addresses are left alone.

Languages without letter case (Japanese, Korean, Chinese) get rules 1 to 3 and no space
before punctuation, nothing else. Writing
style and tone are accepted by the endpoint but cannot be honoured mechanically, so they do not
change the result; neither does a variant conversion (en-US to en-GB spelling).
"""

from __future__ import annotations

import re

from pipeline.service.languages import base_of

NARROW_NBSP = "\u202f"

#: Doubled words that are grammatical, per base language (compared in lower case).
_LEGIT_DOUBLES = {
    "en": frozenset({"had", "that", "is", "do"}),
    "de": frozenset({"die", "der", "das", "sie", "was"}),
    "fr": frozenset({"nous", "vous", "si"}),
    "es": frozenset({"que"}),
    "it": frozenset({"che"}),
    "pt": frozenset({"que"}),
}
#: Words ending in a period that do not end a sentence, per base language (lower case, no period).
_ABBREVIATIONS = {
    "en": frozenset({"e.g", "i.e", "etc", "vs", "mr", "mrs", "ms", "dr", "prof", "st", "no", "approx", "cf", "fig"}),
    "de": frozenset({"z.b", "z", "b", "bzw", "ca", "usw", "etc", "dr", "nr", "vgl", "d.h", "u.a", "s", "str"}),
    "fr": frozenset({"p.ex", "etc", "cf", "m", "mme", "dr", "no", "env"}),
    "es": frozenset({"p.ej", "etc", "sr", "sra", "dr", "dra", "núm", "pág"}),
    "it": frozenset({"ad", "es", "ecc", "sig", "dott", "pag", "n"}),
    "pt": frozenset({"p.ex", "etc", "sr", "sra", "dr", "dra", "pág", "n"}),
}
#: (opening, closing) double quotes per language code (variant first, then base).
_QUOTES = {
    "en": ("\u201c", "\u201d"),
    "de": ("\u201e", "\u201c"),
    "fr": ("\u00ab" + NARROW_NBSP, NARROW_NBSP + "\u00bb"),
    "es": ("\u00ab", "\u00bb"),
    "it": ("\u00ab", "\u00bb"),
    "pt-pt": ("\u00ab", "\u00bb"),
    "pt": ("\u201c", "\u201d"),
    "ja": ("\u300c", "\u300d"),
    "zh": ("\u201c", "\u201d"),
    "ko": ("\u201c", "\u201d"),
}
_CURLY_APOSTROPHE = frozenset({"en", "de", "fr", "it", "pt", "es"})
_CASELESS = frozenset({"ja", "ko", "zh"})

_LETTER = r"[^\W\d_]"
_SPACES = re.compile(r"(?<=\S)[ \t]{2,}(?=\S)")
_DOUBLED = re.compile(rf"(?<!{_LETTER})({_LETTER}+)([ \t]+)(\1)(?!{_LETTER})", re.I)
_SPACE_BEFORE = re.compile(r"(?<=\w)[ \t]+([,;:!?]|\.(?=\s|$))")
#: "word .word" / "word ,word": the space belongs after the mark.
_SPACE_MOVED = re.compile(rf"(?<=\w)[ \t]+([,;:!?])(?={_LETTER}{{2}})")
_SPACE_AFTER_MARK = re.compile(rf"(?<={_LETTER})([,;!?])(?={_LETTER})")
_SPACE_AFTER_COLON = re.compile(rf"(?<={_LETTER}{{2}}):(?={_LETTER}{{2}})")
_SPACE_AFTER_PERIOD = re.compile(r"(?<=[a-zà-ÿ]{2})\.(?=[A-ZÀ-Þ][a-zà-ÿ])")
_FRENCH_MARK = re.compile(r"(?<=[\w\u00bb)\]])[ \u00a0]?([;:!?]+)(?=\s|$)")
_SENTENCE_START = re.compile(r"(?:^|(?<=[.!?])[ \t]+|(?<=[.!?][\"\u201d\u00bb)])[ \t]+)(\S+)")
_DOUBLE_QUOTE = re.compile(r'"')
_APOSTROPHE = re.compile(rf"(?<={_LETTER})'(?={_LETTER})")


def _collapse_spaces(text: str) -> str:
    return _SPACES.sub(" ", text)


def _undouble(text: str, base: str) -> str:
    keep = _LEGIT_DOUBLES.get(base, frozenset())

    def fix(match: re.Match[str]) -> str:
        first, second = match.group(1), match.group(3)
        if first != second and not (first.lower() == second.lower() and second.islower()):
            return match.group()  # "the The" is not a typo of the usual kind; "The the" is
        if first.lower() in keep:
            return match.group()
        return first

    # Until nothing changes: one pass leaves "go go go" as "go go" (a match resumes after its end).
    while (undoubled := _DOUBLED.sub(fix, text)) != text:
        text = undoubled
    return text


def _punctuation(text: str, base: str) -> str:
    text = _SPACE_MOVED.sub(r"\1 ", text)
    text = _SPACE_BEFORE.sub(r"\1", text)
    if base in _CASELESS:
        return text
    text = _SPACE_AFTER_MARK.sub(lambda m: m.group(1) + " ", text)
    text = _SPACE_AFTER_COLON.sub(": ", text)
    text = _SPACE_AFTER_PERIOD.sub(". ", text)
    if base == "fr":
        text = _FRENCH_MARK.sub(lambda m: NARROW_NBSP + m.group(1), text)
    return text


def _ends_sentence(text: str, end: int, base: str) -> bool:
    """Whether the ``.`` ``!`` or ``?`` just before ``end`` closes a sentence."""
    head = text[:end].rstrip(' \t"\u201d\u00bb)')
    if not head or head[-1] in "!?":
        return True
    if head.endswith(".."):
        return False  # an ellipsis may continue the sentence
    word = re.split(r"\s", head[:-1])[-1].lower()
    letters = word.replace(".", "")
    if len(letters) <= 1 or "." in word:
        return False
    return word not in _ABBREVIATIONS.get(base, frozenset())


def _capitalise(text: str, base: str) -> str:
    if base in _CASELESS:
        return text

    def fix(match: re.Match[str]) -> str:
        word = match.group(1)
        if not (word[0].isalpha() and word[0].islower()):
            return match.group()
        core = word.rstrip(",.;:!?\"')\u201d\u00bb")
        letters = core.replace("\u2019", "").replace("'", "").replace("-", "")
        if not letters.isalpha() or not letters.islower():
            return match.group()  # iPhone, www.example.com, user@host, l'homme
        if match.start() > 0 and not _ends_sentence(text, match.start(1), base):
            return match.group()
        return match.group()[: match.start(1) - match.start()] + word[0].upper() + word[1:]

    return _SENTENCE_START.sub(fix, text)


def _quote_pair(language: str) -> tuple[str, str] | None:
    return _QUOTES.get(language.lower()) or _QUOTES.get(base_of(language))


def _typographic_quotes(text: str, language: str) -> str:
    pair = _quote_pair(language)
    if pair is not None and text.count('"') % 2 == 0 and '"' in text:
        opening, closing = pair
        positions = [m.start() for m in _DOUBLE_QUOTE.finditer(text)]
        # Pairs must look like quotes: an opening one not followed by a space, a closing one not preceded by one.
        if all(
            (i % 2 == 0 and p + 1 < len(text) and not text[p + 1].isspace())
            or (i % 2 == 1 and p > 0 and not text[p - 1].isspace())
            for i, p in enumerate(positions)
        ):
            out, last = [], 0
            for i, p in enumerate(positions):
                out.append(text[last:p])
                out.append(opening if i % 2 == 0 else closing)
                last = p + 1
            out.append(text[last:])
            text = "".join(out)
    if base_of(language) in _CURLY_APOSTROPHE:
        text = _APOSTROPHE.sub("\u2019", text)
    return text


def improve(text: str, language: str) -> str:
    """``text`` with the corrections of the module docstring for ``language`` (any code form)."""
    base = base_of(language)
    text = _collapse_spaces(text)
    text = _typographic_quotes(text, language)
    text = _punctuation(text, base)
    # Doubled words last: a sentence-initial "the The" is a doubled word only once capitalised.
    return _undouble(_capitalise(text, base), base)
