"""What every document format shares: the error type, the translator seam, text decoding.

A format module gets the uploaded bytes and a :class:`Translator`; it finds the translatable
text, hands it over in one call (so progress and billing are counted in one place) and returns
the translated file's bytes. Markup sent with ``markup="xml"``/``"html"`` comes back intact.
"""

from __future__ import annotations

import codecs
from collections.abc import Sequence
from typing import Literal, Protocol

Markup = Literal["xml", "html"] | None


class DocumentError(ValueError):
    """A document the service refuses or cannot translate; the message is for the caller."""


class Translator(Protocol):
    """Translates texts of one document job, in order (progress and billing counted inside)."""

    def __call__(self, texts: Sequence[str], markup: Markup = None) -> list[str]:
        """One translation per text."""
        ...


_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"), (codecs.BOM_UTF16_BE, "utf-16-be"))


def decode_text(data: bytes, what: str, fallback: str | None = None) -> tuple[str, str, bytes]:
    """``(text, encoding, bom)`` of a text file: a BOM decides, else UTF-8 (else ``fallback``)."""
    bom, encoding = next(((b, e) for b, e in _BOMS if data.startswith(b)), (b"", fallback or "utf-8"))
    try:
        return data[len(bom) :].decode(encoding), encoding, bom
    except (UnicodeDecodeError, LookupError):
        raise DocumentError(f"the {what} file is not valid {encoding} text") from None


def encode_text(text: str, encoding: str, bom: bytes) -> bytes:
    """``text`` back in the file's encoding; characters it cannot hold become references where possible."""
    return bom + text.encode(encoding, errors="xmlcharrefreplace")
