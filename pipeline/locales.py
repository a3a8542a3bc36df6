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
from typing import TYPE_CHECKING, NamedTuple

from pipeline.alphabets import known_targets, script_of

if TYPE_CHECKING:  # loaded by cldr(), the front door of babel
    from pipeline.cldr import Cldr

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
    "zh": {"HANS": "ZH-HANS", "HANT": "ZH-HANT", "TW": "ZH-HANT", "HK": "ZH-HANT", "MO": "ZH-HANT", "": "ZH-HANS"},
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
#: Old gettext language codes, and the codes they stand for now.
_ALIASES = {"no": "nb", "iw": "he", "in": "id", "ji": "yi"}
#: Languages the service has no code for although a neighbour has one: never sent as the neighbour.
_NOT_THE_SAME = {"nn": "NB"}  # Nynorsk is not Bokmål: another written standard
#: ISO 15924 scripts, as :mod:`pipeline.alphabets` names the script a target is written in.
_SCRIPTS = {
    "Latn": "latin",
    "Cyrl": "cyrillic",
    "Grek": "greek",
    "Hebr": "hebrew",
    "Arab": "arabic",
    "Deva": "devanagari",
    "Beng": "bengali",
    "Gujr": "gujarati",
    "Guru": "gurmukhi",
    "Taml": "tamil",
    "Telu": "telugu",
    "Mlym": "malayalam",
    "Thai": "thai",
    "Geor": "georgian",
    "Armn": "armenian",
    "Mymr": "myanmar",
    "Jpan": "kana",
    "Kore": "hangul",
    "Hans": "hans",
    "Hant": "hant",
}
#: Gettext modifiers that name a script (``sr@latin``, ``uz@cyrillic``, ``ks@devanagari``).
_MODIFIER_SCRIPTS = {name: code for code, name in _SCRIPTS.items() if code not in ("Hans", "Hant", "Jpan", "Kore")}
#: Modifiers that name a form of address (``de@formal``; WordPress writes ``de_DE_formal``).
FORMALITY_VARIANTS = ("formal", "informal")
#: Modifiers that change nothing a translation depends on (``de_DE@euro``: the currency of old glibc locales).
_IGNORED_MODIFIERS = frozenset({"euro"})
_LOCALE = re.compile(
    r"""(?x)^
    (?P<lang>[A-Za-z]{2,3})                        # language: de, pt, kmr
    (?:[_-](?P<script>[A-Za-z]{4}))?               # script: Latn, Hant
    (?:[_-](?P<region>[A-Za-z]{2}|\d{3}))?         # region: BR, 419
    (?:_(?P<address>formal|informal))?             # WordPress's form of address: de_DE_formal
    (?:\.[\w-]+)?                                  # charset: .UTF-8
    (?:@(?P<modifier>\w+))?                        # gettext modifier: @latin, @formal, @valencia
    $"""
)


def parse_locale(code: str) -> tuple[str, str, str, str] | None:
    """``(language, script, region, modifier)`` of a gettext/BCP 47 code, or None if it is not one.

    WordPress's ``de_DE_formal`` reads as ``de_DE@formal``.
    """
    found = _LOCALE.match(code.strip())
    if not found:
        return None
    return (
        found["lang"].lower(),
        (found["script"] or "").title(),
        (found["region"] or "").upper(),
        found["address"] or found["modifier"] or "",
    )


class Variety(NamedTuple):
    """A catalog locale as a run reads it: the service code it is translated into, and what sets it apart.

    ``key`` names the variety: reviewed translations are reused only between catalogs of one key
    (``de`` and ``de_AT`` share one; ``de`` and ``de_DE_formal``, ``nb`` and ``nn``, ``sr`` and
    ``sr_Latn`` do not).
    """

    locale: str
    target: str | None  # None: the service offers no code for it (``why_not`` says why)
    why_not: str | None = None
    formality: str | None = None  # "formal" or "informal": the catalog's own form of address
    key: tuple[str, ...] = ()


def resolve(locale: str, overrides: dict[str, str] | None = None) -> Variety:
    """How a catalog in ``locale`` is translated: its service code (``locale_map`` first), or why there is none.

    A script the service's code does not write (``sr@latin``, ``sr_Latn``: the service's SR is
    Cyrillic) has no code, whatever ``locale_map`` says: a catalog never gets another script.
    """
    parsed = parse_locale(locale)
    if parsed is None:
        return Variety(locale, None, f"{locale!r} is not a locale code", key=(locale.lower(),))
    lang, script, region, modifier = parsed
    lang = _ALIASES.get(lang, lang)
    formality = modifier.lower() if modifier.lower() in FORMALITY_VARIANTS else None
    other = "" if formality or modifier.lower() in _IGNORED_MODIFIERS else modifier.lower()
    if other in _MODIFIER_SCRIPTS:
        script, other = _MODIFIER_SCRIPTS[other], ""
    target, why_not = _target(locale, lang, script, region, other, overrides)
    if target is not None and script:
        written = script_of(target)
        if _SCRIPTS.get(script) != written:
            why_not = (
                f"{language_name(lang)} in {_script_name(script)} script ({locale}) is not offered by the translation "
                f"service: its {target} is written in {_script_name(written)} script, and a catalog is never "
                f"written in another script"
            )
            target = None
        else:
            script = ""  # the script the code writes anyway: zh_Hant and zh_TW are one variety
    key = (lang, script, formality or "", other, target or "")
    return Variety(locale, target, why_not, formality, key)


def _target(
    locale: str, lang: str, script: str, region: str, other: str, overrides: dict[str, str] | None
) -> tuple[str | None, str | None]:
    if overrides and locale in overrides:
        return overrides[locale].upper(), None
    if other:  # ca@valencia, sr@ijekavian: a written variety the service has no code for
        return None, f"{locale}: the variety @{other} has no code on the translation service"
    if lang in _NOT_THE_SAME:
        return None, (
            f"{language_name(lang)} ({lang}) is not offered by the translation service (its "
            f"{_NOT_THE_SAME[lang]} is {language_name(_NOT_THE_SAME[lang].lower())}, another written standard)"
        )
    variants = _VARIANTS.get(lang)
    if variants:
        by_script = variants.get(script.upper()) if script else None
        return by_script or variants.get(region) or variants.get("") or lang.upper(), None
    return lang.upper(), None


def service_target(locale: str, overrides: dict[str, str] | None = None) -> str | None:
    """The service's target code (v2 style, e.g. ``PT-BR``) for a catalog locale, or None (see :func:`resolve`)."""
    return resolve(locale, overrides).target


def refined(locale: str, path: Path) -> str:
    """``locale`` with the form of address its catalog's name gives (``de_DE`` in ``de_DE_formal.po``, as
    WordPress writes them, is ``de_DE@formal``); ``locale`` itself when the name says nothing more."""
    if "formal" not in path.name.lower():  # most names: no need to ask CLDR about the path's words
        return locale
    parsed = parse_locale(locale)
    named = locale_from_path(path)
    if parsed is None or parsed[3] or named is None:
        return locale
    theirs = parse_locale(named)
    if theirs is None or theirs[0] != parsed[0] or theirs[3].lower() not in FORMALITY_VARIANTS:
        return locale
    return f"{locale}@{theirs[3].lower()}"


def cldr() -> Cldr:
    """What CLDR knows of languages: the front door of babel, loaded the first time a code must be checked or
    named, or a plural rule looked up (:mod:`pipeline.cldr`)."""
    from pipeline.cldr import Cldr

    return Cldr()


def _script_name(script: str) -> str:
    """``Latn`` or ``latin`` -> ``Latin``."""
    code = next((c for c, name in _SCRIPTS.items() if name == script), script)
    return cldr().script_names().get(code, script)


def check_code(value: str) -> str | None:
    """Why ``value`` is not a language code a run can use, naming the nearest ones; None when it is one.

    A code is a gettext or BCP 47 locale (``de``, ``pt_BR``, ``sr@latin``, ``zh-Hant``) or a service
    code (``PT-BR``) whose language CLDR knows by that code: ``DEU`` (ISO 639-2) and ``english`` are
    not what catalogs say, and would select nothing. A three-letter code CLDR does not know
    (``cak``, Kaqchikel) is taken as it is: ISO 639-3 has thousands.
    """
    parsed = parse_locale(value)
    if parsed is not None:
        lang = parsed[0]
        alias = cldr().alias(lang)
        if alias and alias.split("_")[0] != _ALIASES.get(lang, lang) and lang not in _ALIASES:
            return f"{value!r} is not a language code catalogs use: did you mean {alias.split('_')[0]!r}?"
        if cldr().knows(lang) or len(lang) == 3 or lang in cldr().language_names() or lang in _ALIASES:
            return None
    nearest = _nearest(value)
    return f"{value!r} is not a language code" + (f"; nearest: {', '.join(nearest)}" if nearest else "")


def _nearest(value: str) -> list[str]:
    """Up to three codes like ``value``, or whose English name is like it (``english`` -> ``en (English)``)."""
    names = cldr().language_names()
    offered = _offered_codes()
    by_name = {name.lower(): code for code, name in names.items() if "_" not in code}
    found = [by_name[n] for n in cldr().close(value.lower(), list(by_name), 3, 0.75)]
    found += cldr().close(value.lower().replace("-", "_"), offered, 3, 0.5)
    unique = list(dict.fromkeys(found))[:3]
    return [f"{code} ({names.get(code.split('_')[0], code)})" for code in unique]


def _offered_codes() -> list[str]:
    """The service's target codes this version knows (:func:`pipeline.alphabets.known_targets`), as catalogs
    spell them (``pt_BR``, ``zh_Hant``)."""
    return sorted(_gettext(code) for code in known_targets())


def _gettext(code: str) -> str:
    lang, _, rest = code.partition("-")
    return f"{lang.lower()}_{rest.title() if len(rest) == 4 else rest.upper()}" if rest else lang.lower()


def not_offered(target: str) -> str:
    """``the service does not offer Kaqchikel (CAK) as a target language``."""
    return f"the service does not offer {language_name(base_language(target))} ({target}) as a target language"


def language_name(code: str) -> str:
    """The English name CLDR gives a language code (``nn``: Norwegian Nynorsk), else the code."""
    return cldr().language_names().get(code.lower().replace("-", "_"), code)


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
    parsed = parse_locale(code)
    return parsed is not None and cldr().knows(parsed[0])
