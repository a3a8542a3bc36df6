"""Source tokens against translation tokens: what changed, went missing or was added.

Tokens are compared by kind and key as multisets: a translation may reorder code, never alter it.
Two readings a translation may legitimately change are normalised first: positions of C directives
(``%s %d`` may become ``%2$d %1$s``) when the source has none, and ICU plural branches, whose tokens
are counted by presence since a language with more plural categories repeats them. A missing token
and an added one of the same kind are reported together as one change. A directive that came back
whole with a letter glued to it where the source had none (``%Y-`` as ``%Yą-``: the letter an engine
adds to a word it sent back unchanged, or a word a moved placeholder now touches) is reported apart,
as GLUED: the code is intact, the text a program prints around it is not.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from difflib import SequenceMatcher
from enum import StrEnum
from typing import NamedTuple

from pipeline.damage.tokens import Kind, Token, brace_metavariables, help_command, is_count, tokens

_POSITION = re.compile(r"^%\d+\$")


class Change(StrEnum):
    """What happened to a token."""

    CHANGED = "changed"  # the source's token is gone and a token of the same kind took its place
    MISSING = "missing"  # the source's token is gone
    ADDED = "added"  # the translation has a token the source has not
    GLUED = "glued"  # the token came back whole, but a letter now touches it where the source had none


class Damage(NamedTuple):
    """One token that did not come through: its kind, the source's text, what happened, what it became."""

    kind: Kind
    token: str  # the source's token (the translation's for ADDED)
    change: Change
    became: str = ""  # the translation's token, for CHANGED


def check(source: str, translation: str) -> list[Damage]:
    """Every code-like token of ``source`` that ``translation`` changed, lost or added."""
    return _metavariables(_unquoted(compare(tokens(source), tokens(translation)), translation, source), source)


def _metavariables(found: list[Damage], source: str) -> list[Damage]:
    """``found`` without the braces a translation put in place of the source's braced argument names: sed's
    ``{script-only-if-no-other-script}`` is ``{SKRIPT_JEN_KDYŽ_JE_JEDINÝ}`` in Czech, a name, no field."""
    left = brace_metavariables(source)
    kept = []
    for d in found:
        if left and d.kind is Kind.BRACE and d.change is Change.ADDED:
            left -= 1
            continue
        kept.append(d)
    return kept


def _unquoted(found: list[Damage], translation: str, source: str) -> list[Damage]:
    """``found`` without the GNU-quoted code that the translation holds as it is without quotes (``alias``),
    and without a command word it holds as a word as often as the source where the line around it no
    longer reads as a synopsis (``source Dateiname [Argumente]``: ``source`` is there, its argument's name
    translated)."""
    return [
        d
        for d in found
        if not (d.kind is Kind.GNU_QUOTED and d.change is Change.MISSING and d.token[1:-1].strip() in translation)
        and not (
            d.kind is Kind.COMMAND
            and d.change is Change.MISSING
            and _words(translation, d.token)
            >= (1 if help_command(source) == d.token else max(1, _words(source, d.token)))
        )
    ]


def _words(text: str, word: str) -> int:
    return len(re.findall(rf"(?<![\w-]){re.escape(word)}(?![\w-])", text))


def check_plural(sources: Sequence[str], forms: Sequence[str]) -> list[Damage]:
    """Damage in a plural entry's forms, each compared with the source (singular or plural) it is closest to.

    gettext lets a form that stands for one number leave its count out (``one`` as ``ein Datei``):
    a count-like token (a directive, a brace field, ICU ``#``) missing from one form is no damage while
    another form of the same entry keeps it.
    """
    found: list[Damage] = []
    kept = {(t.kind, t.key) for form in forms for t in tokens(form)}
    for form in forms:
        target = tokens(form)
        here = {(t.kind, t.key) for t in target}
        best: list[Damage] | None = None
        for source in sources:
            theirs = [t for t in tokens(source) if not _left_out(t, here, kept)]
            damage = _unquoted(compare(theirs, target), form, source)
            if best is None or len(damage) < len(best):
                best = damage
        found.extend(best or [])
    return found


def _left_out(token: Token, here: set[tuple[Kind, str]], kept: set[tuple[Kind, str]]) -> bool:
    """A count this form leaves out while another form of the entry keeps it."""
    return is_count(token) and (token.kind, token.key) not in here and (token.kind, token.key) in kept


#: Kinds compared together: a tag whose name was translated may lose its partner and read as a lone <word>.
_FAMILIES = [(Kind.MARKUP, Kind.METAVAR), *((kind,) for kind in Kind if kind not in (Kind.MARKUP, Kind.METAVAR))]
#: Kinds that the target language's own prose can spell (German "-Klausel", a translator's e-mail
#: address, "SData", "&rsaquo;"): one of them in a translation with nothing gone from the source is not
#: reported; one that took the place of a source token is.
PROSE_LOOKALIKES = frozenset(
    {Kind.OPTION, Kind.IDENTIFIER, Kind.PATH, Kind.ENTITY, Kind.EMAIL, Kind.URL, Kind.COMMAND, Kind.GNU_QUOTED}
)
#: Entities that escape markup: the others stand for characters (quotes, dashes, spaces) a translation
#: may write otherwise, so only these must come back.
STRUCTURAL_ENTITIES = frozenset({"&amp;", "&lt;", "&gt;", "&#38;", "&#60;", "&#62;", "&#x26;", "&#x3c;", "&#x3e;"})
#: gcc's %' prints an apostrophe and takes no argument: a translation may leave it out ("isn%'t", read
#: by printf's grammar as the flag ' and the conversion t).
OPTIONAL_DIRECTIVE = re.compile(r"%'[^diuoxXfFgGeEaA]?\Z")
#: Qt's %1 followed by a unit (%1m for minutes) reads as printf's %1m; a translation writes its own unit.
_QT_UNIT = re.compile(r"(%\d{1,2})[A-Za-z]\Z")
_QT_ARGUMENT = re.compile(r"%L?\d{1,2}[A-Za-z]?\Z")  # %1, %L1, %1h: what follows is text


def compare(source: Sequence[Token], translation: Sequence[Token]) -> list[Damage]:
    """The damage between two token lists (see the module's docstring)."""
    source = [t for t in source if t.kind is not Kind.GNU_QUOTED or is_gnu_quote(t)]  # the others may be prose
    positional = any(t.kind is Kind.PRINTF and _POSITION.match(t.text) for t in source)
    before, after = _counts(source, positional), _counts(translation, positional)
    texts = {(t.kind, _key(t, positional)): t.text for t in [*translation, *source]}
    found: list[Damage] = []
    for family in _FAMILIES:
        missing = [(k, key) for k in family for key in _expand(before, after, k) if not _optional(k, key)]
        added = [(k, key) for k in family for key in _expand(after, before, k)]
        for kind, old in missing:
            new = _closest(old, added)
            if new is not None and kind is Kind.PRINTF and _unit_changed(texts[(kind, old)], texts[new]):
                added.remove(new)
                continue
            if new is not None and kind is Kind.PRINTF and _glued_on(texts[(kind, old)], texts[new]):
                added.remove(new)  # %L glued to "tö" reads as %Lt + ö: the directive is whole
                found.append(Damage(kind, texts[(kind, old)], Change.GLUED, texts[new]))
                continue
            if new is None:
                found.append(Damage(kind, texts[(kind, old)], Change.MISSING))
            else:
                added.remove(new)
                found.append(Damage(kind, texts[(kind, old)], Change.CHANGED, texts[new]))
        found.extend(
            Damage(k, texts[(k, new)], Change.ADDED)
            for k, new in added
            if k not in PROSE_LOOKALIKES and not _written_out(k, new, source)
        )
    # a translation token already reported as what a source directive became is not reported again
    paired = Counter(d.became for d in found if d.change in (Change.GLUED, Change.CHANGED))
    return found + _glued(source, translation, positional, paired)


def is_gnu_quote(token: Token) -> bool:
    """Whether a quoted token is in GNU's ```code'`` quotes, which hold code (any other quotes may hold prose)."""
    return token.text.startswith("`") and token.text.endswith("'")


def _unit_changed(old: str, new: str) -> bool:
    """``%1m`` became ``%1د`` or ``%1``, ``%1`` became ``%1Yö``: Qt's argument kept, the text after it changed."""
    qt = _QT_UNIT.match(old)
    argument = qt.group(1) if qt else old if _QT_ARGUMENT.match(old) else ""
    rest = new[len(argument) :]
    return bool(argument) and new.startswith(argument) and (rest.isalpha() or not rest)


def _glued_on(old: str, new: str) -> bool:
    """``new`` is ``old`` with letters after it (a glued word read as part of a longer directive)."""
    return new.startswith(old) and new[len(old) :].isalpha()


#: The directives of what e2fsck's ``@E`` and ``@F`` stand for ("entry '%Dn' in %p (%i)", "for inode %i (%Q)
#: is"): a translation that writes one out adds them.
_E2FSCK_WRITTEN_OUT = {"@E": ("%Dn", "%p", "%i"), "@F": ("%i", "%Q")}


def _written_out(kind: Kind, key: str, source: Sequence[Token]) -> bool:
    """An added token that is e2fsck's: a code in place of its word (``@b`` for "block": e2fsck knows only
    ASCII letters, so ``@ф`` is damage), or a directive of the ``@E`` or ``@F`` the translation wrote out."""
    if kind is Kind.AT_CODE:
        return key.isascii()
    return kind is Kind.PRINTF and any(key in _E2FSCK_WRITTEN_OUT.get(t.key, ()) for t in source)


def _optional(kind: Kind, key: str) -> bool:
    """A source token a translation may leave out."""
    if kind is Kind.ENTITY:
        return key.lower() not in STRUCTURAL_ENTITIES
    if kind is Kind.AT_CODE:
        return True  # e2fsck expands @i to "inode": translators write the word out as often as not
    return kind is Kind.PRINTF and bool(OPTIONAL_DIRECTIVE.match(key))


def _glued(
    source: Sequence[Token], translation: Sequence[Token], positional: bool, paired: Counter[str]
) -> list[Damage]:
    """Directives a translation glued a letter to (``%Y`` -> ``%Yą``) more often than the source did.

    ``paired``: translation tokens already reported as glued onto a source directive they read longer than.
    """
    found = []
    glued_before = Counter(_key(t, positional) for t in source if t.key.endswith("+"))
    glued_after = [t for t in translation if t.kind is Kind.PRINTF and t.key.endswith("+")]
    for token in glued_after:
        key = _key(token, positional)
        if _QT_ARGUMENT.match(token.text[:-1]):
            continue  # Qt's %1h: the unit after the argument is text
        if paired[token.text]:
            paired[token.text] -= 1
            continue
        if glued_before[key]:
            glued_before[key] -= 1
        else:
            found.append(Damage(Kind.PRINTF, token.text[:-1], Change.GLUED, token.text))
    return found


def _key(token: Token, positional: bool) -> str:
    """What ``token`` is compared by: a glued letter is judged apart (see _glued), positions as the docstring says."""
    key = token.key.removesuffix("+") if token.kind is Kind.PRINTF else token.key
    return key if positional or token.kind is not Kind.PRINTF else _POSITION.sub("%", key)


def _counts(found: Sequence[Token], positional: bool) -> Counter[tuple[Kind, str]]:
    """Tokens by (kind, key); those inside ICU branches count once whatever their number."""
    counts = Counter((t.kind, _key(t, positional)) for t in found)
    outside = {(t.kind, _key(t, positional)) for t in found if not t.in_branch}
    for key in set(counts) - outside:
        counts[key] = 1
    return counts


def _expand(these: Counter[tuple[Kind, str]], those: Counter[tuple[Kind, str]], kind: Kind) -> list[str]:
    return [key for (k, key), n in sorted(these.items()) if k is kind for _ in range(max(0, n - those[(k, key)]))]


#: How alike two tokens must be to be reported as one changed into the other (difflib's ratio).
SIMILAR = 0.5


def _closest(key: str, candidates: list[tuple[Kind, str]]) -> tuple[Kind, str] | None:
    """The added token most like ``key`` (a change rather than a loss and an unrelated gain), if any."""
    scored = [(SequenceMatcher(None, key, c[1]).ratio(), c) for c in candidates]
    best = max(scored, default=None, key=lambda pair: pair[0])
    return best[1] if best is not None and best[0] >= SIMILAR else None
