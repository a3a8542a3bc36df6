"""What CLDR knows of languages, through babel: which codes are languages, their English names, the names of
scripts, and each language's plural rule.

Loaded through one front door, :func:`pipeline.locales.cldr`, and only when a run needs what only
CLDR knows: a language code to check (a configuration or ``--target-lang`` that names one), a
catalog without a Plural-Forms header, a language to name in a message. A run with nothing new,
and one whose catalogs say their plural rule, never load babel (it costs more than starting Python).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping

from babel import Locale, UnknownLocaleError
from babel.core import get_global
from babel.messages.plurals import get_plural
from babel.plural import PluralRule

__all__ = ["Cldr"]


class Cldr:
    """CLDR's data about languages (stateless: babel reads and keeps its own)."""

    @staticmethod
    def knows(language: str) -> bool:
        """Whether CLDR knows ``language`` (a base language code: ``de``, ``pt``, not ``app``)."""
        try:
            Locale.parse(language)
        except (UnknownLocaleError, ValueError):
            return False
        return True

    @staticmethod
    def alias(language: str) -> str | None:
        """The code CLDR says ``language`` is an alias of (``deu`` -> ``de``), or None."""
        found: str | None = get_global("language_aliases").get(language)
        return found

    @staticmethod
    def language_names() -> Mapping[str, str]:
        """Every language code CLDR names, with its English name."""
        names: Mapping[str, str] = Locale("en").languages
        return names

    @staticmethod
    def script_names() -> Mapping[str, str]:
        """Every script code (``Latn``) with its English name (``Latin``)."""
        names: Mapping[str, str] = Locale("en").scripts
        return names

    @staticmethod
    def plural(language: str) -> tuple[int, str] | None:
        """The number of plural forms and the gettext expression CLDR gives ``language``, or None when it knows none."""
        try:
            found = get_plural(Locale.parse(language))
        except (UnknownLocaleError, ValueError):
            return None
        return found.num_plurals, found.plural_expr

    @staticmethod
    def plural_rules(language: str) -> tuple[PluralRule, PluralRule] | None:
        """CLDR's cardinal and ordinal plural rules of ``language``, or None when babel knows no such locale."""
        try:
            parsed = Locale.parse(language)
        except (UnknownLocaleError, ValueError, TypeError):
            return None
        return parsed.plural_form, parsed.ordinal_form

    @staticmethod
    def close(word: str, candidates: list[str], n: int, cutoff: float) -> list[str]:
        """The candidates most like ``word`` (difflib's ratio), best first."""
        return difflib.get_close_matches(word, candidates, n=n, cutoff=cutoff)
