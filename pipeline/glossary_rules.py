"""Glossary records shared by the pipeline's glossary files and the local service's glossaries.

Deliberately light (standard library only): the service must not import the client or pipeline
layers, and the pipeline must not import the service.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Dictionary:
    """One language pair of a glossary with its entries, in the order given (base languages, lower case)."""

    source_lang: str
    target_lang: str
    entries: tuple[tuple[str, str], ...]

    @property
    def pair(self) -> tuple[str, str]:
        """``(source, target)`` base codes in lower case."""
        return self.source_lang, self.target_lang
