"""The configured rules of a style rule list that the engine can apply mechanically.

A rule applies only where it is a mechanical rewrite of punctuation that cannot change meaning;
everything else (numbers, dates, times, word choice, tone ...) is stored with the list and does
not change the output (``docs/local-service-resources.md`` lists both and says why). Rule and
option names follow the provider's published schema; an unknown option of a known rule is
stored only, like an unknown rule.

Rules see the translatable text only: :func:`apply` takes the text runs of one translation (the
pieces between markup tokens, in order) and gives them back rewritten, one for one, so tags,
placeholders and ignored content are never touched. Runs are processed as one text joined by a
separator that no rule matches across, so quotes pair up across tags (``"<b>x</b>"``) while
words split by a tag are left alone. Letters may carry the pseudo engine's combining accents.

Applied rules, in the order they run:

- ``punctuation.quotation_mark`` (``use_curly_quotation_marks``,
  ``use_double_curly_quotation_marks``, ``use_straight_quotation_marks``,
  ``use_double_straight_quotation_marks``, ``use_guillemets``) and the quotation half of
  ``punctuation.quotation_mark_and_apostrophe``: double quotes (straight, curly, low-9 or
  guillemets) that pair up become the chosen style in the target language's form (curly
  ``“…”``, German ``„…“``; guillemets ``«…»``, German ``»…«``, French with U+202F inside);
  a text whose quotes do not pair up is left as it is;
- ``punctuation.apostrophe`` (``use_curly_apostrophes``, ``use_straight_apostrophes``) and the
  apostrophe half of ``quotation_mark_and_apostrophe``: an apostrophe after a letter
  (``don't``, ``dogs'``, ``l'homme``) becomes U+2019 or ``'``;
- ``punctuation.ellipsis``: three periods and U+2026 become each other
  (``use_ellipsis_character``, ``use_one_ellipsis_character``, ``use_three_periods``,
  ``use_three_periods_without_spaces``, ``use_three_spaced_periods``);
- ``punctuation.spacing_and_punctuation``: before ``; : ! ?`` that end a word
  (``use_regular_space`` puts one regular space, ``do_not_use_space`` none); ``10:30`` and URLs
  are left alone;
- ``punctuation.sentence_break_indicator``: a dash between two words that is spaced (``-``,
  ``–``, ``—``) or an unspaced em dash becomes ``" — "``, ``"—"`` or ``" – "``; hyphenated
  words and ranges between digits are left alone;
- ``punctuation.periods_in_academic_degrees``: ``Ph.D.`` and ``PhD`` style for a fixed list
  of degrees (``do_not_use`` removes the periods, keeping a sentence's final one; ``use`` adds
  them, only to abbreviations that are not also ordinary words or codes such as ``MA``);
- ``dates_and_times.calendar_era``: ``BCE``/``CE`` and ``BC``/``AD`` after a number
  (``use_bc_and_ad``, ``use_bce_and_ce``; ``AD 500`` becomes ``500 CE``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import partial

from pipeline.patterns import lazy_regex
from pipeline.service.languages import base_of

Rules = Sequence[tuple[str, str, str]]

NARROW_NBSP = "\u202f"
#: The pseudo engine's accents and any other combining mark a letter may carry.
_MARKS = "[\u0300-\u036f]"
_LETTER = rf"(?:[^\W\d_]{_MARKS}*)"
#: Lookbehind: the previous character ends a word (a letter or a combining mark on one).
_AFTER_LETTER = rf"(?<=[^\W\d_]|{_MARKS})"
_AFTER_WORD = rf"(?<=\w|{_MARKS})"

_CURLY = {"de": ("\u201e", "\u201c")}
_CURLY_DEFAULT = ("\u201c", "\u201d")
_GUILLEMETS = {"de": ("\u00bb", "\u00ab"), "fr": ("\u00ab" + NARROW_NBSP, NARROW_NBSP + "\u00bb")}
_GUILLEMETS_DEFAULT = ("\u00ab", "\u00bb")
_ANY_DOUBLE_QUOTE = lazy_regex('[\u00ab\u00bb\u201c\u201d\u201e\u201f"]')
_QUOTE_SPACES = " \u00a0\u202f"

_QUOTE_OPTIONS = {
    "use_curly_quotation_marks": "curly",
    "use_double_curly_quotation_marks": "curly",
    "use_straight_quotation_marks": "straight",
    "use_double_straight_quotation_marks": "straight",
    "use_guillemets": "guillemets",
}
#: quotation_mark_and_apostrophe option -> (quotation style, apostrophe style).
_COMBINED_OPTIONS = {
    "use_curly_quotation_marks_and_apostrophes": ("curly", "curly"),
    "use_double_and_single_curly_quotation_marks_and_curly_apostrophes": ("curly", "curly"),
    "use_double_and_single_straight_quotation_marks_and_straight_apostrophes": ("straight", "straight"),
    "use_straight_quotation_marks_and_apostrophes": ("straight", "straight"),
    "use_guillemets_and_curly_apostrophes": ("guillemets", "curly"),
    "use_guillemets_and_straight_apostrophes": ("guillemets", "straight"),
}
_APOSTROPHE_OPTIONS = {"use_curly_apostrophes": "curly", "use_straight_apostrophes": "straight"}
_STRAIGHT_APOSTROPHE = lazy_regex(rf"{_AFTER_LETTER}'")
_CURLY_APOSTROPHE = lazy_regex(rf"{_AFTER_LETTER}\u2019")

_THREE_PERIODS = lazy_regex(r"(?<!\.)(?:\.\.\.|\. \. \.)(?!\.)")
_ELLIPSIS_OPTIONS = {
    "use_ellipsis_character": "\u2026",
    "use_one_ellipsis_character": "\u2026",
    "use_three_periods": "...",
    "use_three_periods_without_spaces": "...",
    "use_three_spaced_periods": ". . .",
}

_SPACED_MARK = lazy_regex(rf"{_AFTER_WORD}[ \u00a0\u202f]?([;:!?]+)(?=\s|$)")

_SENTENCE_BREAK = lazy_regex(rf"{_AFTER_LETTER}(?:[ \u00a0]+[-\u2013\u2014][ \u00a0]+|\u2014)(?=[^\W\d_])")
_BREAK_OPTIONS = {
    "use_em_dash_with_space_on_either_side": " \u2014 ",
    "use_em_dash_without_space_on_either_side": "\u2014",
    "use_en_dash_with_space_on_either_side": " \u2013 ",
}

#: (with periods, without); the third field says whether ``use`` may add the periods.
_DEGREES = (
    ("Ph.D.", "PhD", True),
    ("D.Phil.", "DPhil", True),
    ("M.Phil.", "MPhil", True),
    ("M.Sc.", "MSc", True),
    ("B.Sc.", "BSc", True),
    ("M.B.A.", "MBA", True),
    ("LL.M.", "LLM", True),
    ("LL.B.", "LLB", True),
    ("B.Ed.", "BEd", True),
    ("M.Ed.", "MEd", True),
    ("M.A.", "MA", False),
    ("B.A.", "BA", False),
    ("M.D.", "MD", False),
)

_ERA = {
    "use_bc_and_ad": {"BCE": "BC", "CE": "AD"},
    "use_bce_and_ce": {"BC": "BCE", "AD": "CE"},
}


def _loose(literal: str) -> str:
    """A pattern for ``literal`` whose letters may carry combining marks."""
    return "".join(re.escape(ch) + (f"{_MARKS}?" if ch.isalpha() else "") for ch in literal)


def _with_marks(matched: str, template: str) -> str:
    """``template`` with the combining marks of ``matched``'s letters kept on the matching letters."""
    marks: list[str] = []
    for ch in matched:
        if re.match(_MARKS, ch):
            marks[-1] += ch
        elif ch.isalpha():
            marks.append("")
    out, i = [], 0
    for ch in template:
        out.append(ch)
        if ch.isalpha():
            out.append(marks[i] if i < len(marks) else "")
            i += 1
    return "".join(out)


def _quote_style(text: str, style: str, language: str) -> str:
    if style == "straight":
        opening = closing = '"'
    elif style == "curly":
        opening, closing = _CURLY.get(language, _CURLY_DEFAULT)
    else:
        opening, closing = _GUILLEMETS.get(language, _GUILLEMETS_DEFAULT)
    spots = [m.start() for m in _ANY_DOUBLE_QUOTE().finditer(text)]
    if not spots or len(spots) % 2:
        return text
    # Guillemets may have spaces on their inner side (« oui »): those belong to the quote.
    spans: list[tuple[int, int]] = []
    for i, at in enumerate(spots):
        start, end = at, at + 1
        if text[at] in "\u00ab\u00bb":
            if i % 2 == 0:
                while end < len(text) and text[end] in _QUOTE_SPACES:
                    end += 1
            else:
                while start > 0 and text[start - 1] in _QUOTE_SPACES:
                    start -= 1
        # A quote that opens is followed by text, one that closes follows text.
        neighbour = text[end : end + 1] if i % 2 == 0 else text[start - 1 : start]
        if not neighbour or neighbour.isspace() or (i and start < spans[-1][1]):
            return text
        spans.append((start, end))
    out, last = [], 0
    for i, (start, end) in enumerate(spans):
        out += [text[last:start], opening if i % 2 == 0 else closing]
        last = end
    out.append(text[last:])
    return "".join(out)


def _apostrophes(text: str, style: str) -> str:
    if style == "curly":
        return _STRAIGHT_APOSTROPHE().sub("\u2019", text)
    return _CURLY_APOSTROPHE().sub("'", text)


def _ellipsis(text: str, form: str) -> str:
    if form == "\u2026":
        return _THREE_PERIODS().sub(form, text)
    return _THREE_PERIODS().sub(form, text.replace("\u2026", form))


def _spacing(text: str, option: str) -> str:
    space = " " if option == "use_regular_space" else ""
    return _SPACED_MARK().sub(lambda m: space + m.group(1), text)


def _keeps_final_period(text: str, end: int) -> bool:
    """Whether the period just before ``end`` also ends the sentence (end of text or a capital next)."""
    return re.match(r"[ \t]*$|[ \t]+[A-Z\u00c0-\u00de]", text[end:]) is not None


def _dotted(dotted: str, match: re.Match[str]) -> str:
    return _with_marks(match.group(), dotted)


def _renamed(new: str, match: re.Match[str]) -> str:
    """An era after its number: the spacing kept, the word replaced."""
    return match.group(1) + _with_marks(match.group()[len(match.group(1)) :], new)


def _degrees(text: str, option: str) -> str:
    for dotted, plain, may_add in _DEGREES:
        if option == "do_not_use":
            pattern = re.compile(rf"(?<![^\W_]){_loose(dotted)}")
            text = pattern.sub(
                lambda m: m.group().replace(".", "") + ("." if _keeps_final_period(m.string, m.end()) else ""), text
            )
        elif may_add:
            # "a PhD." already has the degree's final period.
            pattern = re.compile(rf"(?<![^\W_]){_loose(plain)}(?P<period>\.)?(?![\w.]|{_MARKS})")
            text = pattern.sub(partial(_dotted, dotted), text)
    return text


def _era(text: str, option: str) -> str:
    for old, new in _ERA[option].items():
        pattern = re.compile(rf"(?<=\d)([ \u00a0]+){_loose(old)}(?![\w.]|{_MARKS})")
        text = pattern.sub(partial(_renamed, new), text)
    if option == "use_bce_and_ce":
        text = re.sub(
            rf"(?<![^\W_])(?P<era>{_loose('AD')})(?P<space>[ \u00a0]+)(?P<year>\d+)(?!\d)",
            lambda m: m["year"] + m["space"] + _with_marks(m["era"], "CE"),
            text,
        )
    return text


def _rewrites(rules: Rules, language: str) -> list[Callable[[str], str]]:
    """The rewrites ``rules`` ask for, in the order of the module docstring."""
    chosen = {(category, rule): option for category, rule, option in rules}
    quotes = _QUOTE_OPTIONS.get(chosen.get(("punctuation", "quotation_mark"), ""))
    apostrophes = _APOSTROPHE_OPTIONS.get(chosen.get(("punctuation", "apostrophe"), ""))
    combined = _COMBINED_OPTIONS.get(chosen.get(("punctuation", "quotation_mark_and_apostrophe"), ""))
    if combined is not None:
        quotes, apostrophes = quotes or combined[0], apostrophes or combined[1]
    steps: list[Callable[[str], str]] = []
    if quotes is not None:
        steps.append(partial(_quote_style, style=quotes, language=language))
    if apostrophes is not None:
        steps.append(partial(_apostrophes, style=apostrophes))
    ellipsis = _ELLIPSIS_OPTIONS.get(chosen.get(("punctuation", "ellipsis"), ""))
    if ellipsis is not None:
        steps.append(partial(_ellipsis, form=ellipsis))
    spacing = chosen.get(("punctuation", "spacing_and_punctuation"))
    if spacing in ("use_regular_space", "do_not_use_space"):
        steps.append(partial(_spacing, option=spacing))
    dash = _BREAK_OPTIONS.get(chosen.get(("punctuation", "sentence_break_indicator"), ""))
    if dash is not None:
        steps.append(partial(_SENTENCE_BREAK().sub, dash))
    degrees = chosen.get(("punctuation", "periods_in_academic_degrees"))
    if degrees in ("use", "do_not_use"):
        steps.append(partial(_degrees, option=degrees))
    era = chosen.get(("dates_and_times", "calendar_era"))
    if era in _ERA:
        steps.append(partial(_era, option=era))
    return steps


def applied(rules: Rules) -> tuple[tuple[str, str, str], ...]:
    """The rules of ``rules`` that change output (the others are stored only)."""
    return tuple(rule for rule in rules if _rewrites((rule,), "en"))


def apply(runs: Sequence[str], rules: Rules, target_lang: str) -> list[str]:
    """The text runs of one translation with the mechanical rules of ``rules`` applied."""
    if not rules:  # the usual request: nothing to work out per text
        return list(runs)
    steps = _rewrites(rules, base_of(target_lang))
    if not steps or not runs:
        return list(runs)
    joined_from = "".join(runs)
    separator = next(chr(c) for c in range(0xE000, 0xF900) if chr(c) not in joined_from)
    text = separator.join(runs)
    for step in steps:
        text = step(text)
    out = text.split(separator)
    assert len(out) == len(runs)
    return out
