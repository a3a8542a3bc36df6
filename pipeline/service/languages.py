"""The language table of the service and the features each resource offers per language.

Codes are kept in their v3 form (``en-US``, ``zh-Hant``, ``es-419``); v2 answers use the upper-case
form (``EN-US``). Input codes are matched case-insensitively everywhere through :func:`find`.
The local service has no features relying on third-party providers, so ``include=external``
is accepted and changes nothing; the only beta entries are the languages ``de-CH`` and ``fr-CA``.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.protocol import FORMALITY_TARGETS, STYLE_LANGUAGES

STABLE, BETA = "stable", "beta"


@dataclass(frozen=True)
class Language:
    """One entry of the table: code (v3 form), English name, status, text-translation roles."""

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


_BASES = """ar Arabic|bg Bulgarian|cs Czech|da Danish|de German|el Greek|en English|es Spanish|et Estonian
fi Finnish|fr French|he Hebrew|hu Hungarian|id Indonesian|it Italian|ja Japanese|ko Korean|lt Lithuanian
lv Latvian|nb Norwegian (Bokmål)|nl Dutch|pl Polish|pt Portuguese|ro Romanian|ru Russian|sk Slovak
sl Slovenian|sv Swedish|th Thai|tr Turkish|uk Ukrainian|vi Vietnamese|zh Chinese"""
_TARGET_VARIANTS = """en-GB English (British)|en-US English (American)|es-419 Spanish (Latin American)
pt-BR Portuguese (Brazilian)|pt-PT Portuguese (European)|zh-Hans Chinese (simplified)
zh-Hant Chinese (traditional)"""
_BETA_VARIANTS = "de-CH German (Swiss)|fr-CA French (Canadian)"
#: Base languages that are translation sources but, as targets, exist only as variants.
_SOURCE_ONLY = frozenset({"en", "pt", "zh"})


def _parse(table: str) -> list[tuple[str, str]]:
    rows = []
    for item in table.replace("\n", "|").split("|"):
        code, name = item.strip().split(" ", 1)
        rows.append((code, name))
    return rows


def _build() -> tuple[Language, ...]:
    rows = [Language(c, n, STABLE, True, c not in _SOURCE_ONLY) for c, n in _parse(_BASES)]
    rows += [Language(c, n, STABLE, False, True) for c, n in _parse(_TARGET_VARIANTS)]
    rows += [Language(c, n, BETA, False, True) for c, n in _parse(_BETA_VARIANTS)]
    return tuple(sorted(rows, key=lambda lang: lang.code.lower()))


LANGUAGES: tuple[Language, ...] = _build()
_BY_KEY = {lang.code.lower(): lang for lang in LANGUAGES}

#: Write: targets of /write/rephrase and /write/correct together, and those with style/tone.
WRITE_TARGETS = ("de", "en", "en-GB", "en-US", "es", "fr", "it", "ja", "ko", "pt", "pt-BR", "pt-PT", "zh", "zh-Hans")
WRITE_STYLE_TARGETS = frozenset({"de", "en-GB", "en-US", "es", "fr", "it", "pt-BR", "pt-PT"})
#: Document formality: as text translation but without ES-419 (spec, document translation).
DOCUMENT_FORMALITY_TARGETS = FORMALITY_TARGETS - {"ES-419"}


def canonical(code: str) -> str:
    """``code`` in v3 form: lower-case base, upper-case region, title-case script."""
    parts = code.strip().split("-")
    out = [parts[0].lower()]
    for part in parts[1:]:
        out.append(part.title() if len(part) == 4 else part.upper())
    return "-".join(out)


def find(code: str) -> Language | None:
    """The table entry for ``code`` (any case), or None."""
    return _BY_KEY.get(code.strip().lower())


def base_of(code: str) -> str:
    """Lower-case base language of any code."""
    return code.strip().split("-", 1)[0].lower()


def text_sources() -> tuple[Language, ...]:
    """Source languages of text translation."""
    return tuple(lang for lang in LANGUAGES if lang.source)


def text_targets(include_beta: bool = True) -> tuple[Language, ...]:
    """Target languages of text translation."""
    return tuple(lang for lang in LANGUAGES if lang.target and (include_beta or lang.status == STABLE))


def supports_formality(lang: Language) -> bool:
    """Whether ``formality`` works for this text-translation target."""
    return lang.v2 in FORMALITY_TARGETS


def supports_style(lang: Language) -> bool:
    """Whether style rules and ``custom_instructions`` work for this target (base language rule)."""
    return lang.base in STYLE_LANGUAGES


@dataclass(frozen=True)
class Feature:
    """A feature descriptor of a resource: which side(s) of a pair must list it."""

    name: str
    needs_source_support: bool
    needs_target_support: bool


_SOURCE, _TARGET, _BOTH = (True, False), (False, True), (True, True)
RESOURCE_FEATURES: dict[str, tuple[Feature, ...]] = {
    "translate_text": (
        Feature("formality", *_TARGET),
        Feature("glossary", *_BOTH),
        Feature("tag_handling", *_BOTH),
        Feature("style_rules", *_TARGET),
        Feature("auto_detection", *_SOURCE),
    ),
    "translate_document": (
        Feature("formality", *_TARGET),
        Feature("glossary", *_BOTH),
        Feature("auto_detection", *_SOURCE),
    ),
    "glossary": (),
    "voice": (),
    "write": (Feature("writing_style", *_TARGET), Feature("tone", *_TARGET)),
    "style_rules": (),
}


@dataclass(frozen=True)
class ResourceEntry:
    """One language as a resource lists it: roles and the feature names it supports."""

    language: Language
    source: bool
    target: bool
    features: tuple[str, ...]


def _translation_features(lang: Language, document: bool) -> tuple[str, ...]:
    names: list[str] = []
    if lang.target:
        formality = DOCUMENT_FORMALITY_TARGETS if document else FORMALITY_TARGETS
        if lang.v2 in formality:
            names.append("formality")
    names.append("glossary")
    if not document:
        names.append("tag_handling")
        if lang.target and supports_style(lang):
            names.append("style_rules")
    if lang.source:
        names.append("auto_detection")
    return tuple(names)


def resource_entries(resource: str) -> tuple[ResourceEntry, ...]:
    """Every language (beta included) of ``resource`` with its roles and features."""
    if resource in ("translate_text", "translate_document"):
        document = resource == "translate_document"
        return tuple(ResourceEntry(x, x.source, x.target, _translation_features(x, document)) for x in LANGUAGES)
    if resource == "glossary":
        return tuple(ResourceEntry(x, True, True, ()) for x in text_sources())
    if resource == "voice":
        return tuple(ResourceEntry(x, x.source, x.target, ()) for x in LANGUAGES if x.status == STABLE)
    if resource == "write":
        entries = []
        for code in WRITE_TARGETS:
            lang = _BY_KEY[code.lower()]
            features = ("writing_style", "tone") if code in WRITE_STYLE_TARGETS else ()
            entries.append(ResourceEntry(lang, "-" not in code, True, features))
        return tuple(entries)
    if resource == "style_rules":
        return tuple(ResourceEntry(_BY_KEY[c], False, True, ()) for c in STYLE_LANGUAGES)
    raise KeyError(resource)
