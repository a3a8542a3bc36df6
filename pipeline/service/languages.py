"""The languages of each resource and the features each one supports, from the data files.

The facts (languages, statuses, roles, features per resource) live in ``pipeline/service/data``
as JSON files naming their sources and date; this module answers the service's questions about
them. Codes are kept in their v3 form (``en-US``, ``zh-Hant``, ``es-419``); v2 answers use the
upper-case form (``EN-US``). Input codes are matched case-insensitively everywhere through
:func:`find`. The local service has no features relying on third-party providers, so
``include=external`` is accepted and changes nothing.
"""

from functools import cache
from typing import NamedTuple

from pipeline.service.data import tables

STABLE, BETA = "stable", "beta"
TEXT, DOCUMENT = "translate_text", "translate_document"
#: Resources ``/v3/languages`` serves, in the order ``/v3/languages/resources`` lists them.
RESOURCES = tables.RESOURCES


class Language(NamedTuple):
    """One language of a resource: code (v3 form), English name, status, roles."""

    code: str
    name: str
    status: str
    source: bool
    target: bool

    @property
    def base(self) -> str:
        """Lower-case base language (``en`` for ``en-US``)."""
        return base_of(self.code)

    @property
    def v2(self) -> str:
        """Upper-case form used by the v2 endpoints and in ``detected_source_language``."""
        return self.code.upper()


#: A feature descriptor of a resource (which side(s) of a pair must list it), as the data files give it.
Feature = tables.FeatureSpec


class ResourceEntry(NamedTuple):
    """One language as a resource lists it: roles and the feature names it supports."""

    language: Language
    source: bool
    target: bool
    features: tuple[str, ...]


def _language(row: tables.LanguageRow) -> Language:
    return Language(row.code, row.name, row.status, row.source, row.target)


@cache
def resource_entries(resource: str) -> tuple[ResourceEntry, ...]:
    """Every language (beta included) of ``resource`` with its roles and features; KeyError if unknown."""
    return tuple(
        ResourceEntry(_language(row), row.source, row.target, row.features) for row in tables.load(resource).languages
    )


@cache
def resource_features(resource: str) -> tuple[Feature, ...]:
    """The features of ``resource`` and the sides each needs."""
    return tables.load(resource).features


@cache
def _index(resource: str) -> dict[str, ResourceEntry]:
    return {entry.language.code.lower(): entry for entry in resource_entries(resource)}


def entry(resource: str, code: str) -> ResourceEntry | None:
    """How ``resource`` lists ``code`` (any case), or None when it does not."""
    return _index(resource).get(code.strip().lower())


def has_feature(resource: str, code: str, feature: str) -> bool:
    """Whether ``resource`` lists ``feature`` for ``code``."""
    found = entry(resource, code)
    return found is not None and feature in found.features


#: Every language of text translation (the widest table): what :func:`find` knows.
LANGUAGES: tuple[Language, ...] = tuple(e.language for e in resource_entries(TEXT))


def canonical(code: str) -> str:
    """``code`` in v3 form: lower-case base, upper-case region, title-case script."""
    parts = code.strip().split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        out.append(part.title() if len(part) == 4 else part.upper())
    return "-".join(out)


#: Deprecated targets the real service still accepts, and the variant it serves for each: ``ZH``
#: is Simplified Chinese (its v2 listing names it so, and the official clients pass it through).
#: v3 lists them as sources only (``usable_as_target`` false, as ``en`` in the real service's
#: description); v2 still lists them as targets.
SERVED_AS = {"zh": "zh-Hans"}


def accepted_as_target(lang: Language) -> bool:
    """Whether text translation takes ``lang`` as ``target_lang``: a listed target or a deprecated one."""
    return lang.target or lang.code in SERVED_AS


def served_as(lang: Language) -> Language:
    """The language a translation into ``lang`` is made in: itself, or the variant of a deprecated target."""
    variant = SERVED_AS.get(lang.code)
    found = None if variant is None else find(variant)
    return lang if found is None else found


def find(code: str) -> Language | None:
    """The text-translation entry for ``code`` (any case), or None."""
    found = entry(TEXT, code)
    return None if found is None else found.language


def base_of(code: str) -> str:
    """Lower-case base language of any code."""
    return code.strip().split("-", 1)[0].lower()


def text_sources() -> tuple[Language, ...]:
    """Source languages of text translation."""
    return tuple(lang for lang in LANGUAGES if lang.source)


def text_targets(include_beta: bool = True) -> tuple[Language, ...]:
    """Target languages of text translation."""
    return tuple(lang for lang in LANGUAGES if lang.target and (include_beta or lang.status == STABLE))


def supports_formality(lang: Language, resource: str = TEXT) -> bool:
    """Whether ``formality`` works for this target of ``resource``."""
    return has_feature(resource, lang.code, "formality")


def supports_style(lang: Language) -> bool:
    """Whether style rules and ``custom_instructions`` work for this text-translation target."""
    return has_feature(TEXT, lang.code, "style_rules")


def v2_target_name(lang: Language) -> str:
    """The name the deprecated v2 target listing gives ``lang`` (the unspecified ``ZH`` is Simplified Chinese)."""
    return tables.load(TEXT).v2_target_names.get(lang.code, lang.name)


def v2_listing(kind: str) -> tuple[Language, ...]:
    """The deprecated ``/v2/languages`` view of text translation: ``source`` or ``target`` entries.

    It derives from the same table, leaving out what the real service leaves out of v2 (the
    ``v2_hidden`` codes of the data file).
    """
    hidden = tables.load(TEXT).v2_hidden
    wanted = [lang for lang in LANGUAGES if lang.code not in hidden]
    return tuple(lang for lang in wanted if (lang.source if kind == "source" else accepted_as_target(lang)))
