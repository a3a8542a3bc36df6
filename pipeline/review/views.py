"""The review page's JSON: an entry as a list row, an entry in full, the catalogs and the tallies."""

from __future__ import annotations

from typing import Any

from pipeline.review import entries
from pipeline.review.session import DECIDED, Entry, Session

JSON = dict[str, Any]


def listing(session: Session) -> JSON:
    """Everything the page lists: the entries in review order, the catalogs, and the decisions so far."""
    return {
        "entries": [row(session, e) for e in session.ordered()],
        "catalogs": [{"name": c.display, "language": c.language} for c in session.catalogs],
        "source_lang": session.settings.source_lang,
        "tally": tally(session),
    }


def tally(session: Session) -> JSON:
    """Decisions of this review (per kind) and the entries still awaiting review."""
    totals = {status.value: 0 for status in DECIDED}
    for (_, status), count in session.decided.items():
        totals[status.value] += count
    return {**totals, "awaiting": session.awaiting()}


def row(session: Session, entry: Entry) -> JSON:
    """``entry`` as the list shows and filters it."""
    loaded = session.catalogs[entry.catalog]
    unit = session.unit(entry)
    return {
        "id": entry.id,
        "catalog": loaded.display,
        "language": loaded.language,
        "line": entry.line,
        "origin": entry.origin.value,
        "reused_from": entry.reused_from,
        "level": entry.level,
        "status": entry.status.value,
        "version": entry.version,
        "source": unit.sources[0] if unit is not None else "",
        # Key-based XLIFF and Zope's message ids: the key as written (the source above is the text it stands
        # for), else None.
        "key": (unit.key or loaded.key_of.get(unit.position)) if unit is not None else None,
        "target": unit.targets[0] if unit is not None and unit.targets else "",
        "context": unit.context if unit is not None else None,
    }


def detail(session: Session, entry: Entry) -> JSON:
    """``entry`` in full: its texts cut at placeholders, forms with their numbers, checks, comments, previous source."""
    found = row(session, entry)
    unit = session.unit(entry)
    loaded = session.catalogs[entry.catalog]
    if unit is None:
        return {**found, "gone": True}
    details = session.details(entry)
    sources = [entries.source_pieces(text, unit.flags) for text in unit.sources]
    targets = entries.current_targets(unit)
    labels = entries.form_numbers(loaded.rule, unit.nforms) if unit.plural else [""]
    # Each form is compared with the source it is made from: the singular for the form of n=1.
    singular = loaded.rule.form_for(1) if loaded.rule is not None else 0
    forms = [
        {
            "label": labels[n],
            "text": text,
            "pieces": entries.target_pieces(text, sources[0 if not unit.plural or n == singular else 1]),
        }
        for n, text in enumerate(targets)
    ]
    previous = None
    if details.previous:
        previous = {
            "context": details.previous_context,
            "forms": [entries.difference(old, new) for old, new in zip(details.previous, unit.sources, strict=False)],
        }
    return {
        **found,
        "gone": False,
        "format": loaded.catalog.format,
        "plural": unit.plural,
        "flags": [f for f in unit.flags if f != "fuzzy"],
        "notes": unit.notes,
        "comments": details.comments,
        "references": list(details.references),
        "previous": previous,
        "sources": sources,
        "forms": forms,
        "checks": [
            {"severity": str(p.severity), "reason": p.reason} for p in entries.problems(loaded.catalog, unit, targets)
        ],
        "limit": entries.limit(unit),
    }
