"""Locale codes: which language a catalog is in, and the service's code for it.

Gettext and XLIFF spell locales ``pt_BR``, ``pt-PT``, ``zh_TW``, ``zh_Hant``, ``sr@latin``; the
service wants ``PT-BR``, ``ZH-HANT``. :func:`service_target` maps one to the other without asking
the service (so a fully cached run sends nothing); the run then checks the result against
``GET /v3/languages`` before the first request.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

# Regions and scripts that select a service variant; anything else falls back to the base language.
_VARIANTS = {
    "en": {
        "GB": "EN-GB",
        "UK": "EN-GB",
        "IE": "EN-GB",
        "AU": "EN-GB",
        "NZ": "EN-GB",
        "IN": "EN-GB",
        "ZA": "EN-GB",
        "": "EN-US",
    },
    "pt": {"BR": "PT-BR", "": "PT-PT"},
    "zh": {"HANT": "ZH-HANT", "TW": "ZH-HANT", "HK": "ZH-HANT", "MO": "ZH-HANT", "": "ZH-HANS"},
    "es": {
        "419": "ES-419",
        "MX": "ES-419",
        "AR": "ES-419",
        "CO": "ES-419",
        "CL": "ES-419",
        "PE": "ES-419",
        "VE": "ES-419",
        "US": "ES-419",
        "UY": "ES-419",
        "": "ES",
    },
    "de": {"CH": "DE-CH"},
    "fr": {"CA": "FR-CA"},
}
# Gettext language codes the service knows under another name.
_ALIASES = {"nb": "NB", "no": "NB", "nn": "NB", "iw": "HE", "in": "ID"}
_LOCALE = re.compile(
    r"^(?P<lang>[A-Za-z]{2,3})(?:[_-](?P<script>[A-Za-z]{4}))?(?:[_-](?P<region>[A-Za-z]{2}|\d{3}))?"
    r"(?:\.[\w-]+)?(?:@(?P<modifier>\w+))?$"
)


def parse_locale(code: str) -> tuple[str, str, str, str] | None:
    """``(language, script, region, modifier)`` of a gettext/BCP 47 code, or None if it is not one."""
    found = _LOCALE.match(code.strip())
    if not found:
        return None
    return (
        found["lang"].lower(),
        (found["script"] or "").title(),
        (found["region"] or "").upper(),
        found["modifier"] or "",
    )


def service_target(locale: str, overrides: dict[str, str] | None = None) -> str | None:
    """The service's target code (v2 style, e.g. ``PT-BR``) for a catalog locale, or None."""
    if overrides and locale in overrides:
        return overrides[locale].upper()
    parsed = parse_locale(locale)
    if parsed is None:
        return None
    lang, script, region, modifier = parsed
    if modifier:  # sr@latin, ca@valencia, ...: a written variety the service has no code for
        return None
    variants = _VARIANTS.get(lang)
    if variants:
        by_script = variants.get(script.upper()) if script else None
        return by_script or variants.get(region) or variants.get("") or lang.upper()
    return _ALIASES.get(lang, lang.upper())


def service_source(locale: str) -> str:
    """The service's source code: the base language in upper case (``en_US`` -> ``EN``)."""
    parsed = parse_locale(locale)
    return (parsed[0] if parsed else locale).upper()


def selection(codes: Iterable[str]) -> set[str]:
    """The locales or service codes a run is limited to (``target_langs``, ``--target``), for :func:`selected`."""
    return {code.lower().replace("_", "-") for code in codes}


def selected(wanted: set[str], locale: str, target: str | None) -> bool:
    """Whether a catalog in ``locale`` (service code ``target``) belongs to a run limited to ``wanted`` (empty: all)."""
    return not wanted or bool(wanted & {locale.lower().replace("_", "-"), (target or "").lower()})


def base_language(code: str) -> str:
    """``pt-BR`` -> ``pt``."""
    return re.split(r"[-_@.]", code, maxsplit=1)[0].lower()


#: Known language codes that are more often a word in a file name than a language, after a
#: hyphen: ``admin-ts.po`` is not in Tsonga. Such a file is in its language only by its header,
#: its folder or ``[translate] languages``.
_NOT_AFTER_A_HYPHEN = frozenset({"am", "as", "be", "is", "js", "no", "or", "so", "to", "ts"})


def locale_from_path(path: Path) -> str | None:
    """Guess a catalog's locale from its path, the first of these that CLDR knows as a language:
    ``de/LC_MESSAGES/x.po``, ``x.de.po`` (``messages+intl-icu.de.xlf``), ``de_DE.po``,
    ``admin-de_DE.po`` (a WordPress language pack), then the folder: ``de/x.po``.

    ``index.po``, ``admin-ui.po`` or ``messages.xlf`` name no language.
    """
    parts = path.parts
    stem = path.stem
    candidates = []
    if len(parts) >= 3 and parts[-2] == "LC_MESSAGES":
        candidates.append(parts[-3])
    if "." in stem:
        candidates.append(stem.rsplit(".", 1)[1])
    candidates.append(stem)
    pieces = stem.rsplit(".", 1)[-1].split("-")
    if len(pieces) >= 3:
        candidates.append("-".join(pieces[-2:]))  # admin-pt-BR
    if len(pieces) >= 2 and pieces[-1].lower() not in _NOT_AFTER_A_HYPHEN:
        candidates.append(pieces[-1])
    if len(parts) >= 2:
        candidates.append(parts[-2])
    return next((c for c in candidates if is_known_locale(c)), None)


def is_known_locale(code: str) -> bool:
    """Whether CLDR (through babel) knows ``code``'s language: ``de``, ``pt_BR``, ``sr@latin`` yes; ``app`` no."""
    from babel import Locale, UnknownLocaleError

    parsed = parse_locale(code)
    if parsed is None:
        return False
    try:
        Locale.parse(parsed[0])
    except (UnknownLocaleError, ValueError):
        return False
    return True
