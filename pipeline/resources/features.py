"""Which optional feature each language supports, as the service says (``GET /v3/languages``).

A feature is supported for a pair when every side it needs (``GET /v3/languages/resources``)
lists it. A service without the resources listing is assumed to need what the spec says:
glossaries both sides, formality and style rules the target.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, NamedTuple

from pipeline import protocol
from pipeline.errors import AuthenticationError, QuotaExceededError, ServiceError, TransportError
from pipeline.resources.targets import has_style_lists

if TYPE_CHECKING:  # the client (httpx) is imported by the caller, only when requests are sent
    from pipeline.client.aio import AsyncClient

#: feature -> (needs source support, needs target support), when the service does not say.
SPEC_SIDES = {
    "formality": (False, True),
    "glossary": (True, True),
    "style_rules": (False, True),
    "tag_handling": (True, True),
}
#: Errors that stop a run whatever the endpoint; a 403 from a style endpoint means a free-tier key.
STOP = (QuotaExceededError, TransportError)
#: Errors that mean "stop", not "this feature is missing".
FATAL = (AuthenticationError, *STOP)


class LanguageSupport(NamedTuple):
    """Languages of ``translate_text`` with their features, and the sides each feature needs."""

    features: Mapping[str, frozenset[str]]  # code (upper case) -> feature names
    sources: frozenset[str]
    targets: frozenset[str]
    sides: Mapping[str, tuple[bool, bool]]

    def offers_target(self, target: str) -> bool:
        """Whether ``target`` is a text-translation target of the service."""
        return target.upper() in self.targets

    @classmethod
    def from_spec(cls, source: str, targets: Iterable[str]) -> LanguageSupport:
        """What the spec says, for a service that cannot list its languages: the run then finds out."""
        features = {source.upper(): frozenset({"glossary"})}
        for target in targets:
            names = {"glossary"}
            if target.upper() in protocol.FORMALITY_TARGETS:
                names.add("formality")
            if has_style_lists(target):
                names.add("style_rules")
            features[target.upper()] = frozenset(names)
        return cls(features, frozenset({source.upper()}), frozenset(t.upper() for t in targets), dict(SPEC_SIDES))

    def supports(self, feature: str, source: str, target: str) -> bool:
        """Whether ``feature`` works for ``source -> target``."""
        needs_source, needs_target = self.sides.get(feature, (True, True))
        ok = True
        if needs_source:
            ok = feature in self.features.get(source.upper(), frozenset())
        if needs_target:
            ok = ok and feature in self.features.get(target.upper(), frozenset())
        return ok


async def discover(client: AsyncClient) -> LanguageSupport:
    """Ask the service (two GETs); raises only for the errors that stop a run."""
    languages = await client.languages("translate_text", include=("beta",))
    sides = dict(SPEC_SIDES)
    try:
        resources = await client.language_resources()
    except FATAL:
        raise
    except ServiceError:
        resources = ()
    for resource in resources:
        if resource.name == "translate_text":
            for f in resource.features:
                sides[f.name] = (f.needs_source_support, f.needs_target_support)
    return LanguageSupport(
        features={lang.code.upper(): frozenset(lang.features) for lang in languages},
        sources=frozenset(lang.code.upper() for lang in languages if lang.usable_as_source),
        targets=frozenset(lang.code.upper() for lang in languages if lang.usable_as_target),
        sides=sides,
    )
