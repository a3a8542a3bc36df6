"""What a configuration's values must be: the checks the keys of :mod:`pipeline.config.keys` name.

Types first (:func:`check_types`: a type per key, ``list[str]`` a list of strings), then the values
the types allow and a run still cannot use: a range, a glob with an empty character range, a URL
httpx would refuse, a NUL in a folder's name. A check returns None, or what follows the key's name
in the error (``" must be at least 1"``, ``"[0] is not a valid glob: ..."``); the first one wrong is a
:class:`~pipeline.errors.ConfigError` of one line naming the file and the key, exit 2
(:mod:`pipeline.config`): a run never meets one half-way.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, cast, get_args, get_origin
from urllib.parse import urlsplit

from pipeline.config.lines import did_you_mean
from pipeline.errors import ConfigError, has_userinfo, redact_url
from pipeline.locales import check_code
from pipeline.patterns import lazy_regex

#: What ``isinstance`` takes: a type or a tuple of types.
_Types = type | tuple[type, ...]

EMBEDDED = "embedded"
ENV_AUTH_KEY = "PIPELINE_AUTH_KEY"
CACHE_URL_SCHEMES = ("redis", "rediss", "unix")
CONTEXT_POLICIES = ("all", "msgctxt", "none")
OVER_LENGTH = ("review", "refuse")
UNSUPPORTED = ("fail", "skip")
MAX_CONCURRENCY = 1024  # requests in flight: far past what any service takes from one client
MAX_ATTEMPTS = 100
_ENDLESS = float("inf")

#: A value's check: None, or what follows the key's name in the error.
Check = Callable[[Any], str | None]


def kind(value: object) -> str:
    """The TOML type of ``value`` as errors name it (``int``, ``str``, ``list``)."""
    return type(value).__name__


def one_of(choices: Sequence[str]) -> Check:
    """The value is one of ``choices``."""
    return lambda value: None if value in choices else f" must be one of {', '.join(choices)}"


def at_least(low: int, problem: str = "") -> Check:
    """A number of at least ``low``."""
    return lambda value: None if value >= low else problem or f" must be at least {low}"


def at_most(high: int) -> Check:
    """A number of at most ``high``."""
    return lambda value: None if value <= high else f" must be at most {high}"


def seconds_or_more(low: float, problem: str) -> Check:
    """Seconds of at least ``low``, and finite (the comparisons refuse NaN too)."""
    return lambda value: None if low <= value < _ENDLESS else problem


def more_than_0_seconds(value: float) -> str | None:
    """Seconds of more than 0, and finite."""
    return None if 0 < value < _ENDLESS else " must be more than 0 seconds"


def printable_ascii(value: str) -> str | None:
    """Visible ASCII and spaces only: the value is sent as a header."""
    return None if all(" " <= c <= "~" for c in value) else " must hold printable ASCII characters only"


def no_nul(value: str) -> str | None:
    """A folder or file name: no NUL character (an empty value is checked by the key's own meaning)."""
    return None if "\0" not in value else " holds a NUL character, which no file name can"


def globs(values: list[str]) -> str | None:
    """Every glob of the list can name a file (:func:`glob_problem`)."""
    return next((f"[{i}] {wrong}" for i, glob in enumerate(values) if (wrong := glob_problem(glob))), None)


def compendia(values: list[str]) -> str | None:
    """Globs of compendia: none empty, each able to name a file, each one pathlib's glob (which finds
    them) reads: a ``**`` is a whole folder name there."""
    empty = next((i for i, glob in enumerate(values) if not glob), None)
    if empty is not None:
        return f"[{empty}] is empty: a compendium is a file name or glob"
    glued = next((i for i, glob in enumerate(values) if _glued_any_folders(glob)), None)
    if glued is not None:
        return f"[{glued}] is not a valid glob: '**' stands for any folders only as a whole name (a/**/b.po); write '*'"
    return globs(values)


def _glued_any_folders(glob: str) -> bool:
    """Whether a ``**`` of ``glob`` is part of a longer name (``x**.po``), which pathlib refuses (ValueError)."""
    names = glob.replace("\\", "/").split("/") if os.name == "nt" else glob.split("/")
    return any("**" in name and name != "**" for name in names)


def glob_keys(table: dict[str, Any]) -> str | None:
    """Every key of the table is a glob that can name a file."""
    return next((f"[{glob!r}] {wrong}" for glob in table if (wrong := glob_problem(glob))), None)


def code(value: str) -> str | None:
    """A language code a run can use (:func:`pipeline.locales.check_code`)."""
    problem = check_code(value)
    return f": {problem}" if problem else None


def codes(values: list[str]) -> str | None:
    """Every item is a language code."""
    return next((problem for value in values if (problem := code(value))), None)


def code_values(table: dict[str, Any]) -> str | None:
    """Every value of the table (glob -> locale) is a locale code a catalog can be in."""
    for pattern, locale in table.items():
        problem = code(locale) if isinstance(locale, str) else ': must be a locale code like "de" or "pt_BR"'
        if problem:
            return f"[{pattern!r}]{problem}"
    return None


def check_types(path: Path, where: str, table: dict[str, Any], schema: Mapping[str, object]) -> None:
    """Every key of ``table`` is in ``schema`` with a value of its type (``list[str]``: a list of strings)."""
    section = tuple(where.rstrip(".").split(".")) if where else ()
    for key, value in table.items():
        expected = schema.get(key)
        if expected is None:
            known = ", ".join(sorted(schema))
            raise ConfigError(
                f"{path}: unknown key {where}{key!r}{did_you_mean(key, tuple(schema))} (known: {known})",
                (*section, key),
            )
        item: type | None = None
        if get_origin(expected) is list:
            expected, item = list, get_args(expected)[0]
        # What is left of ``expected`` is a type or a tuple of types (``(int, float)``).
        if isinstance(value, bool) and expected in (int, (int, float)) or not isinstance(value, cast(_Types, expected)):
            raise ConfigError(f"{path}: {where}{key} has the wrong type ({kind(value)})", (*section, key))
        if item is not None and isinstance(value, list):
            bad = next((i for i, element in enumerate(value) if not isinstance(element, item)), None)
            if bad is not None:
                raise ConfigError(
                    f"{path}: {where}{key}[{bad}] must be a {item.__name__}, not {kind(value[bad])}", (*section, key)
                )


def check_service_url(url: str, where: str) -> str:
    """``url`` when it is ``embedded`` or an http(s) URL the client can send to, naming no user or
    password; the error shows it without them (and ``embeded`` gets a "did you mean").

    Refused rather than stripped: httpx sends a URL's user and password as Basic auth, in the very
    header that carries the key, so such a URL never reaches the service as meant, and its password
    would otherwise be printed wherever the URL is (the log, report.json).
    """
    if has_userinfo(url):
        raise ConfigError(
            f"{where} carries a user or password ({redact_url(url)} is shown without them): the service "
            f"key goes in {ENV_AUTH_KEY}, and a user and password in the URL would be sent as Basic auth "
            f"in its place"
        )
    if url == EMBEDDED:
        return url
    if not re.match(r"(?i)https?://", url):
        raise ConfigError(f"{where} {_not_a_url(url)}")
    problem = _url_problem(url)
    if problem is not None:
        raise ConfigError(f"{where} {problem}")
    return url


def _not_a_url(value: str) -> str:
    """Why ``value`` is no service URL, with the likely one. A value that looks like neither is not
    repeated: it may be a key pasted in the wrong place."""
    if _edits(value.strip().lower(), EMBEDDED) <= 3:
        return f"{value!r} is not a service URL: did you mean {EMBEDDED!r} (the local service)?"
    if "://" in value:
        return f"{redact_url(value)} is not a service URL: it must start with http:// or https://"
    if len(value) <= 200 and re.fullmatch(r"(localhost|[\w-]+(\.[\w-]+)+)(:\d+)?(/\S*)?", value.strip()):
        return f"{value!r} is not a service URL: did you mean 'https://{value.strip()}'?"
    return "is not a service URL (http:// or https://) nor 'embedded' (the local service); the value is not shown"


def _edits(word: str, target: str) -> int:
    """How many letters to add, drop or change to make ``word`` into ``target`` (Levenshtein), beyond 9: 9."""
    if abs(len(word) - len(target)) > 8:
        return 9
    row = list(range(len(target) + 1))
    for i, char in enumerate(word, 1):
        previous, row[0] = row[0], i
        for j, want in enumerate(target, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (char != want))
    return row[-1]


#: The longest URL httpx sends (its MAX_URL_LENGTH).
MAX_URL_LENGTH = 65536


def _url_problem(url: str) -> str | None:
    """Why the client could never send a request to ``url`` (as httpx would refuse it), or None."""
    if len(url) > MAX_URL_LENGTH:
        return f"is {len(url)} characters long; a URL has at most {MAX_URL_LENGTH}"
    bad = next((i for i, char in enumerate(url) if ord(char) <= 0x20 or ord(char) == 0x7F), None)
    if bad is not None:
        return f"holds a space or control character (at position {bad})"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - parsing it is the check
    except ValueError as exc:
        return f"is not a URL the client can use ({exc})"
    return None if parts.hostname else "names no host"


def check_cache_url(url: str, where: str) -> str:
    """``url`` when it names a Redis the cache can use; the error never quotes it (it may hold a password)."""
    scheme = url.split("://", 1)[0].lower() if "://" in url else ""
    if scheme not in CACHE_URL_SCHEMES:
        raise ConfigError(
            f"{where} must be a URL starting with "
            f"{', '.join(s + '://' for s in CACHE_URL_SCHEMES)} (the value is not shown: it may "
            f"hold a password)"
        )
    return url


#: A bracket expression of a glob as :mod:`pipeline.catalog_paths` reads it: ``[``, a leading ``!``
#: (it negates), the first character whatever it is, then up to the next ``]`` of the name (``\\``
#: separates names there too).
_BRACKETS = re.compile(r"\[(!?[^/][^]/]*)\]")
_RANGE = lazy_regex(r"(.)-(.)")


def glob_problem(glob: str) -> str | None:
    """Why ``glob`` can name no file (a NUL, an empty character range such as ``[z-a]``), or None."""
    if "\0" in glob:
        return "holds a NUL character, which no file name can"
    for body in _BRACKETS.findall(glob.replace("\\", "/")):
        for low, high in _RANGE().findall(body.removeprefix("!")):
            if low > high:
                return f"is not a valid glob: the character range {low}-{high} is empty (write {high}-{low})"
    return None
