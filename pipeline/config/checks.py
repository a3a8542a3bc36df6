"""What a configuration's values must be: checked in one place, when the file is read.

Types first (:data:`TOP` and :data:`SECTIONS`: a type per key, ``list[str]`` a list of strings),
then the values the types allow and a run still cannot use (:func:`check_values`): a range, a glob
with an empty character range, a URL httpx would refuse, a NUL in a folder's name. The first one
wrong is a :class:`~pipeline.errors.ConfigError` of one line naming the file and the key, exit 2;
a run never meets one half-way.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, get_args, get_origin
from urllib.parse import urlsplit

from pipeline.errors import ConfigError, has_userinfo, redact_url

EMBEDDED = "embedded"
ENV_AUTH_KEY = "PIPELINE_AUTH_KEY"
CACHE_URL_SCHEMES = ("redis", "rediss", "unix")
CONTEXT_POLICIES = ("all", "msgctxt", "none")
OVER_LENGTH = ("review", "refuse")
UNSUPPORTED = ("fail", "skip")
MAX_CONCURRENCY = 1024  # requests in flight: far past what any service takes from one client
MAX_ATTEMPTS = 100

TOP = {
    "source_lang": str,
    "catalogs": list[str],
    "exclude": list[str],
    "target_langs": list[str],
    "service": dict,
    "translate": dict,
    "cache": dict,
    "report": dict,
    "resources": dict,
    "locale_defaults": dict,
    "locales": dict,
    "refresh": dict,
}
SECTIONS: dict[str, Mapping[str, object]] = {
    "service": {"url": str, "concurrency": int, "timeout": (int, float), "max_attempts": int, "reporting_tag": str},
    "translate": {
        "mark_fuzzy": bool,
        "context": str,
        "locale_map": dict,
        "max_characters": int,
        "lock_wait": (int, float),
        "languages": dict,
        "to_utf8": bool,
        "reuse": bool,
        "compendia": list[str],
        "over_length": str,
        "unsupported_languages": str,
        "source_variants": bool,
    },
    "cache": {"dir": str, "url": str, "ttl": int},
    "report": {"dir": str},
    "refresh": {"template": str},
}


def kind(value: object) -> str:
    return type(value).__name__


def check_types(path: Path, where: str, table: dict[str, Any], schema: Mapping[str, object]) -> None:
    """Every key of ``table`` is in ``schema`` with a value of its type (``list[str]``: a list of strings)."""
    for key, value in table.items():
        expected = schema.get(key)
        if expected is None:
            raise ConfigError(f"{path}: unknown key {where}{key!r} (known: {', '.join(sorted(schema))})")
        item: type | None = None
        if get_origin(expected) is list:
            expected, item = list, get_args(expected)[0]
        if isinstance(value, bool) and expected in (int, (int, float)) or not isinstance(value, expected):  # type: ignore[arg-type]
            raise ConfigError(f"{path}: {where}{key} has the wrong type ({kind(value)})")
        if item is not None:
            bad = next((i for i, element in enumerate(value) if not isinstance(element, item)), None)
            if bad is not None:
                raise ConfigError(f"{path}: {where}{key}[{bad}] must be a {item.__name__}, not {kind(value[bad])}")


def check_values(path: Path, data: dict[str, Any]) -> None:
    """Values of the right type a run still cannot use: the first is a ConfigError naming its key.

    Every value of the file is checked here or by its type (:func:`_check`), when the file is read:
    a run never meets one half-way (a glob, a URL or a folder name it cannot use).
    """
    svc, tr, cache = data.get("service", {}), data.get("translate", {}), data.get("cache", {})
    endless = float("inf")  # the comparisons below refuse NaN too
    rules: list[tuple[str, bool, str]] = [
        (
            "translate.context",
            tr.get("context", "all") in CONTEXT_POLICIES,
            f"must be one of {', '.join(CONTEXT_POLICIES)}",
        ),
        (
            "translate.over_length",
            tr.get("over_length", "review") in OVER_LENGTH,
            f"must be one of {', '.join(OVER_LENGTH)}",
        ),
        (
            "translate.unsupported_languages",
            tr.get("unsupported_languages", "fail") in UNSUPPORTED,
            f"must be one of {', '.join(UNSUPPORTED)}",
        ),
        ("service.concurrency", svc.get("concurrency", 1) >= 1, "must be at least 1"),
        ("service.concurrency", svc.get("concurrency", 1) <= MAX_CONCURRENCY, f"must be at most {MAX_CONCURRENCY}"),
        ("service.max_attempts", svc.get("max_attempts", 1) >= 1, "must be at least 1"),
        ("service.max_attempts", svc.get("max_attempts", 1) <= MAX_ATTEMPTS, f"must be at most {MAX_ATTEMPTS}"),
        ("service.timeout", 0 < svc.get("timeout", 1) < endless, "must be more than 0 seconds"),
        # Sent as a header value: visible ASCII and spaces only.
        (
            "service.reporting_tag",
            all(" " <= c <= "~" for c in svc.get("reporting_tag", "")),
            "must hold printable ASCII characters only",
        ),
        ("translate.max_characters", tr.get("max_characters", 0) >= 0, "must be 0 or more"),
        ("translate.lock_wait", 0 <= tr.get("lock_wait", 0) < endless, "must be 0 or more seconds"),
        ("cache.ttl", cache.get("ttl", 0) >= 0, "must be 0 (no expiry) or more seconds"),
    ]
    folders = {"cache.dir": cache.get("dir"), "report.dir": data.get("report", {}).get("dir")}
    folders["refresh.template"] = data.get("refresh", {}).get("template")
    rules += [
        (key, "\0" not in name, "holds a NUL character, which no file name can")
        for key, name in folders.items()
        if name
    ]
    for key, fine, problem in rules:
        if not fine:
            raise ConfigError(f"{path}: {key} {problem}")
    globs = [(f"{key}[{i}]", glob) for key in ("catalogs", "exclude") for i, glob in enumerate(data.get(key, []))]
    globs += [(f"translate.compendia[{i}]", glob) for i, glob in enumerate(tr.get("compendia", []))]
    globs += [(f"translate.languages[{glob!r}]", glob) for glob in tr.get("languages", {})]
    for key, glob in globs:
        empty = not glob and "compendia" in key
        wrong = "is empty: a compendium is a file name or glob" if empty else glob_problem(glob)
        if wrong is not None:
            raise ConfigError(f"{path}: {key} {wrong}")
    _check_codes(path, data)


def _check_codes(path: Path, data: dict[str, Any]) -> None:
    """Every language code of the file is one (``source_lang = "english"``, ``target_langs = ["xx"]`` are not)."""
    from pipeline.locales import check_code

    problem = check_code(data["source_lang"]) if "source_lang" in data else None
    if problem:
        raise ConfigError(f"{path}: source_lang: {problem}")
    for code in data.get("target_langs", []):
        problem = check_code(code) if isinstance(code, str) else "a code must be a string"
        if problem:
            raise ConfigError(f"{path}: target_langs: {problem}")


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
    import difflib

    if difflib.get_close_matches(value.strip().lower(), [EMBEDDED], n=1, cutoff=0.6):
        return f"{value!r} is not a service URL: did you mean {EMBEDDED!r} (the local service)?"
    if "://" in value:
        return f"{redact_url(value)} is not a service URL: it must start with http:// or https://"
    if len(value) <= 200 and re.fullmatch(r"(localhost|[\w-]+(\.[\w-]+)+)(:\d+)?(/\S*)?", value.strip()):
        return f"{value!r} is not a service URL: did you mean 'https://{value.strip()}'?"
    return "is not a service URL (http:// or https://) nor 'embedded' (the local service); the value is not shown"


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


#: A bracket expression of a glob as :mod:`pipeline.catalog_paths` reads it: ``[``, its first
#: character whatever it is, then up to the next ``]`` of the name (``\\`` separates names there too);
#: a leading ``!`` negates.
_BRACKETS = re.compile(r"\[([^/][^]/]*)\]")
_RANGE = re.compile(r"(.)-(.)")


def glob_problem(glob: str) -> str | None:
    """Why ``glob`` can name no file (a NUL, an empty character range such as ``[z-a]``), or None."""
    if "\0" in glob:
        return "holds a NUL character, which no file name can"
    for body in _BRACKETS.findall(glob.replace("\\", "/")):
        for low, high in _RANGE.findall(body.removeprefix("!")):
            if low > high:
                return f"is not a valid glob: the character range {low}-{high} is empty (write {high}-{low})"
    return None
