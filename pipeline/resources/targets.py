"""Per target language, offline: which glossary dictionary, style list, formality, model type and
translation memory its requests carry, and the content hashes that go into the cache keys.

Cache keys use content, never service ids: a glossary's id stays the same when a dictionary is
replaced, and a recreated style list gets a new id for the same rules. So the key of a segment
holds the hash of the glossary entries whose source phrase occurs in it (see
:meth:`Dictionary.matched_hash`) and the hash of its style list's definition; editing one term
re-translates the segments that contain it and nothing else.
"""

import hashlib
import json
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from pipeline import locales, protocol
from pipeline.catalog_paths import display_path
from pipeline.config import Settings
from pipeline.config.resources import StyleSpec
from pipeline.errors import ConfigError
from pipeline.resources.glossary_files import Dictionary, Entry, merge, read_multilingual, read_pair_file
from pipeline.segments import TranslationOptions


class TargetPlan(NamedTuple):
    """What the requests for one service target code carry, before the service is asked."""

    target: str
    dictionary: Dictionary | None = None
    style: StyleSpec | None = None
    formality: str | None = None
    strict_formality: bool = False
    model_type: str | None = None
    translation_memory_id: str | None = None
    translation_memory_threshold: int | None = None

    @property
    def style_hash(self) -> str | None:
        """12 hex digits naming what the style list does (its name is left out: it changes nothing);
        None where the spec says style lists do not exist, as the request will not carry one."""
        if self.style is None or not has_style_lists(self.target):
            return None
        return style_hash(self.style, style_language(self.target))

    @property
    def sent_formality(self) -> str | None:
        """The formality the requests are expected to carry: a ``prefer_*`` value for a target
        without formality is the default (spec rule 9), so it is left out and not in the key."""
        if self.formality and not self.strict_formality and self.target.upper() not in protocol.FORMALITY_TARGETS:
            return None
        return self.formality


class ResourcePlan:
    """The resource plan of a run or of a sync command; each target is worked out on first use."""

    def __init__(self, settings: Settings) -> None:
        res = settings.resources
        self.project = res.project
        self.source = locales.base_language(settings.source_lang)  # base language, lower case
        self.where = display_path(settings.root, settings.config_path) if settings.config_path else "pipeline.toml"
        self._settings = settings
        self._by_target = _locale_keys(settings)
        self._pair_files: dict[tuple[Path, str], list[Entry]] = {}
        self._multilingual: dict[str, list[list[Entry]]] = {}
        for path in res.multilingual_glossaries:
            for base, entries in read_multilingual(path, display_path(settings.root, path), self.source).items():
                self._multilingual.setdefault(base, []).append(entries)
        self._targets: dict[str, TargetPlan] = {}
        self._key_options: dict[tuple[TranslationOptions, str | None], TranslationOptions] = {}
        self._contents: dict[str, tuple[str, tuple[tuple[str, str], ...]]] = {}  # base -> (first target, entries)

    def target(self, target: str) -> TargetPlan:
        """What requests for service code ``target`` carry; reads its glossary files on first use."""
        if target not in self._targets:
            self._targets[target] = self._resolve(target)
        return self._targets[target]

    def dictionaries(self, targets: Iterable[str]) -> dict[tuple[str, str], Dictionary]:
        """Every dictionary of ``targets`` and of the multilingual tables' languages."""
        out = {d.pair: d for d in (self.target(t).dictionary for t in targets) if d is not None}
        for base, sources in self._multilingual.items():
            entries = merge(sources)
            if (self.source, base) not in out and base != self.source and entries:
                out[self.source, base] = Dictionary(self.source, base, entries)
        return out

    def options(
        self, source_lang: str, target_lang: str, context: str | None, address: str | None = None
    ) -> TranslationOptions:
        """The options of one segment's request, without service ids (those come with the sync).

        ``address`` is a catalog's own form of address (``formal`` for ``de_DE_formal``, ``informal``):
        sent as ``prefer_more`` / ``prefer_less`` whatever the configured formality, for the targets
        that have formality (spec rule 9; elsewhere a ``prefer_`` value is the default, and not sent).
        """
        plan = self.target(target_lang)
        formality = plan.sent_formality
        if address is not None:
            has_formality = target_lang.upper() in protocol.FORMALITY_TARGETS
            formality = ("prefer_more" if address == "formal" else "prefer_less") if has_formality else None
        return TranslationOptions(
            source_lang=source_lang,
            target_lang=target_lang,
            context=context,
            formality=formality,
            model_type=plan.model_type,
            glossary_hash=plan.dictionary.content_hash if plan.dictionary else None,
            style_version=plan.style_hash,
            translation_memory_id=plan.translation_memory_id,
            translation_memory_threshold=plan.translation_memory_threshold if plan.translation_memory_id else None,
        )

    def key_options(self, options: TranslationOptions, text: str) -> TranslationOptions:
        """``options`` as the cache key sees them for ``text``: no ids, only the glossary entries it contains."""
        dictionary = self.target(options.target_lang).dictionary
        matched = options.glossary_hash  # a hash this plan did not make is kept whole
        if options.glossary_hash == (dictionary.content_hash if dictionary else None) and dictionary is not None:
            matched = dictionary.matched_hash(text)
        found = self._key_options.get((options, matched))  # a few distinct results for thousands of texts
        if found is None:
            found = self._key_options[options, matched] = options._replace(
                glossary_id=None, style_id=None, glossary_hash=matched
            )
        return found

    def _resolve(self, target: str) -> TargetPlan:
        spec = self._settings.resources.for_locale(self._by_target.get(target))
        base = locales.base_language(target)
        sources = list(self._multilingual.get(base, []))
        for path in spec.glossaries:
            if (path, base) not in self._pair_files:
                display = display_path(self._settings.root, path)
                self._pair_files[path, base] = read_pair_file(path, display, self.source, base)
            sources.append(self._pair_files[path, base])
        entries = merge(sources)
        dictionary = None
        if entries and base != self.source:
            dictionary = Dictionary(self.source, base, entries)
            first = self._contents.setdefault(base, (target, entries))
            if first[1] != entries:
                raise ConfigError(
                    f"{self.where}: {first[0]} and {target} configure different glossaries, but a "
                    f"glossary applies to a whole base language ({self.source}->{base}); give them "
                    f"the same glossary files"
                )
        formality = spec.formality
        if formality == "default":
            formality = None
        elif formality in ("more", "less") and not spec.strict_formality:
            formality = f"prefer_{formality}"
        return TargetPlan(
            target=target,
            dictionary=dictionary,
            style=spec.style,
            formality=formality,
            strict_formality=bool(spec.strict_formality),
            model_type=spec.model_type,
            translation_memory_id=spec.translation_memory_id,
            translation_memory_threshold=spec.translation_memory_threshold,
        )


def style_language(target: str) -> str:
    """The style list language of a target code: its base language (``EN-GB`` -> ``en``)."""
    return locales.base_language(target)


def has_style_lists(target: str) -> bool:
    """Whether the spec has style rule lists for the language of target code ``target``."""
    return style_language(target) in protocol.STYLE_LANGUAGES


def style_material(style: StyleSpec, language: str) -> dict[str, object]:
    """What a style list does, as JSON data: its language, rules and instructions (as a multiset)."""
    return {
        "language": language,
        "rules": style.rules_dict(),
        "instructions": sorted([i.label, i.prompt, i.source_language or ""] for i in style.instructions),
    }


def style_hash(style: StyleSpec, language: str) -> str:
    """12 hex digits over :func:`style_material`."""
    encoded = json.dumps(style_material(style, language), ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(encoded.encode("utf-8")).hexdigest()[:12]


def configured_targets(settings: Settings) -> list[str]:
    """The service codes of the ``[locales.<code>]`` tables."""
    out = []
    for key in settings.resources.locales:
        target = locales.service_target(key, dict(settings.locale_map))
        if target is None:
            raise ConfigError(
                f"{settings.config_path}: [locales.{key}]: no language of the service matches this "
                f"locale (set translate.locale_map, or remove the table)"
            )
        out.append(target)
    return out


def _locale_keys(settings: Settings) -> dict[str, str]:
    """Service target code -> the ``[locales.<key>]`` key that configures it."""
    out: dict[str, str] = {}
    for key, target in zip(settings.resources.locales, configured_targets(settings), strict=True):
        if target in out:
            raise ConfigError(
                f"{settings.config_path}: [locales.{out[target]}] and [locales.{key}] both configure "
                f"the service language {target}"
            )
        out[target] = key
    return out
