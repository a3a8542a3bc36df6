"""What msgfmt refuses across a catalog's scanned entries: the same msgctxt and msgid twice, and plural
forms it cannot number (``msgstr[N]`` without a ``msgid_plural``, a plain ``msgstr`` after one, forms not
numbered 0, 1, 2... in order), each at the line msgfmt names."""

from __future__ import annotations

from itertools import compress, islice
from pathlib import Path

from pipeline.catalogs.po_lines import TextLines
from pipeline.catalogs.po_scan.entry import Entry, fields
from pipeline.errors import CatalogError
from pipeline.patterns import lazy_regex

__all__ = ["refuse_duplicates", "refuse_misnumbered_forms"]

_KEY = fields("msgctxt", "msgid")


def refuse_duplicates(path: Path, spans: list[Entry]) -> None:
    """Refuse a second entry with the msgctxt and msgid of an earlier one, as msgfmt does (obsolete ones too)."""
    keys = list(map(_KEY, spans))
    if len(set(keys)) == len(keys):  # the common case, counted at C speed; else the first duplicate is found
        return
    seen: dict[tuple[str | None, str], int] = {}
    for span in spans:
        key = (span.msgctxt, span.msgid)
        if key in seen:
            raise CatalogError(
                str(path),
                f"the same msgctxt and msgid as the entry at line {seen[key]}, which msgfmt refuses",
                span.msgid_line + 1,
            )
        seen[key] = span.msgid_line + 1


_FORMS = fields("msgstr_plural")
_PLURAL_ID = fields("msgid_plural")
_PLURAL_KEYWORD = lazy_regex(r"(?:#~\s*)?msgid_plural\b")
_FORM_KEYWORD = lazy_regex(r"\s*(?:#~\s*)?msgstr\s*\[")


def refuse_misnumbered_forms(path: Path, spans: list[Entry], lines: TextLines) -> None:
    """Refuse plural forms msgfmt refuses (obsolete entries' too): msgstr[N] without a msgid_plural, a plain
    msgstr after one, forms not numbered 0, 1, 2... in the file's order."""
    # The entries with forms or a msgid_plural, picked at C speed: most catalogs hold few.
    picked = {span.first: span for span in compress(spans, map(_FORMS, spans))}
    picked.update((span.first, span) for span in compress(spans, map(_PLURAL_ID, spans)))
    for _, span in sorted(picked.items()):
        forms = list(span.msgstr_plural)
        if not span.msgid_plural:
            if any(_PLURAL_KEYWORD().match(lines[i]) for i in range(span.msgid_line, span.msgstr_start)):
                continue  # msgid_plural "", which msgfmt reads
            # at the msgid, where msgfmt misses it
            raise CatalogError(str(path), "msgstr[N] without a msgid_plural, which msgfmt refuses", span.msgid_line + 1)
        if not forms:
            reason = "an entry with a msgid_plural has msgstr[0], msgstr[1]..., not a msgstr, as msgfmt requires"
            line = span.msgstr_start
        elif forms != list(range(len(forms))):
            numbers = ", ".join(f"msgstr[{n}]" for n in forms)
            reason = f"plural forms {numbers}: msgfmt requires msgstr[0], msgstr[1]... in that order"
            # at the first form out of its place, as msgfmt says it: the lines of the forms' keywords, in order
            wrong = next(place for place, n in enumerate(forms) if n != place)
            keywords = (i for i in range(span.msgstr_start, span.msgstr_end) if _FORM_KEYWORD().match(lines[i]))
            line = next(islice(keywords, wrong, None), span.msgstr_start)
        else:
            continue
        raise CatalogError(str(path), reason, line + 1)
