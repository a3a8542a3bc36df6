"""A URL-encoded form read as the JSON object it stands for, indexed fields included.

The official Node.js client sends every glossary write as a form, and the dictionaries of a v3
glossary as indexed fields: ``dictionaries[0].source_lang=en&dictionaries[0].entries=...``. Read
here, such a form becomes the object its JSON twin would be
(``{"dictionaries": [{"source_lang": "en", "entries": "..."}]}``), so an endpoint checks one shape
whichever way the body came.

Rules, each broken one a 400 naming the field: a plain field appears once; an indexed field is
``NAME[INDEX].FIELD`` or ``NAME[INDEX][FIELD]`` (the two spellings a form library writes) and
appears once; the indices of a name run from 0 without gaps; a name is either plain or indexed;
a field with a bracket in its name is indexed (``dictionaries[][source_lang]``, which some form
libraries write, or an index past 999999 would otherwise be an unknown plain field, and the
dictionary it carries would be dropped without a word).
Every value is a string, as in any form.
"""

from __future__ import annotations

from typing import Any

from pipeline.patterns import lazy_regex
from pipeline.service.echo import echo
from pipeline.service.http.params import parse_form
from pipeline.service.http.responses import bad_request

_INDEXED = lazy_regex(
    r"""(?x)
    (?P<name>[A-Za-z_][A-Za-z0-9_]*)   # the list's name: dictionaries
    \[(?P<index>[0-9]{1,6})\]          # its element: [0]
    (?:\.(?P<dotted>[A-Za-z_][A-Za-z0-9_]*)|\[(?P<bracketed>[A-Za-z_][A-Za-z0-9_]*)\])  # .field or [field]
    """
)


def form_object(body: bytes) -> dict[str, Any]:
    """The object a URL-encoded form body stands for (see the module docstring)."""
    plain: dict[str, str] = {}
    indexed: dict[str, dict[int, dict[str, str]]] = {}
    for key, values in parse_form(body).items():
        if len(values) > 1:
            raise bad_request(f"form field {echo(key)} may be given only once")
        match = _INDEXED().fullmatch(key)
        if match is None:
            if "[" in key or "]" in key:  # an element meant for a list: ignored as an odd plain field, it was lost
                raise bad_request(
                    f"form field {echo(key)} is not a list element: write NAME[INDEX].FIELD or "
                    "NAME[INDEX][FIELD], INDEX a number from 0 to 999999"
                )
            plain[key] = values[0]
            continue
        field = match.group("dotted") or match.group("bracketed")
        element = indexed.setdefault(match.group("name"), {}).setdefault(int(match.group("index")), {})
        if field in element:
            raise bad_request(f"form field {echo(key)} is given twice (as {match.group('name')}[N].field and [field])")
        element[field] = values[0]
    value: dict[str, Any] = dict(plain)
    for name, elements in indexed.items():
        if name in plain:
            raise bad_request(f"form field {echo(name)} is given both plain and indexed ({name}[N].field)")
        missing = next((i for i in range(len(elements)) if i not in elements), None)
        if missing is not None:
            raise bad_request(
                f"form fields {name}[N] must be numbered from 0 without gaps; {name}[{missing}] is missing"
            )
        value[name] = [elements[i] for i in range(len(elements))]
    return value
