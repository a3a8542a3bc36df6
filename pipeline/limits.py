"""Length limits a catalog sets on its units, carried as flags every format shares.

A unit's flags say how long its translation may be:

- ``max-length:N``: at most N characters (code points). A PO entry writes it among its flags
  (``#, max-length:40, python-format``: Weblate's convention); the XLIFF reader gives it to a
  1.2 ``trans-unit`` with ``maxwidth="N"`` and ``size-unit="char"`` (other size units measure
  pixels, columns or bytes on a device: not read), and to a 2.x ``unit`` with
  ``slr:sizeRestriction="N"`` (or ``"min,max"``) under the general profile ``xliff:codepoints``.
- ``max-storage-<codec>:N``: at most N bytes once encoded in ``<codec>`` (``utf-8``, ``utf-16``,
  ``utf-32``): a 2.x ``slr:storageRestriction`` under the storage profile ``xliff:utf8``,
  ``xliff:utf16`` or ``xliff:utf32``.

Where the file declares no ``slr:profiles``, the standard profiles are assumed (``xliff:codepoints``
and ``xliff:utf8``); a third-party profile's restrictions are not read. A 2.x unit's restriction
applies to its whole target; a unit of several segments has it checked on each segment alone.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from pipeline.patterns import lazy_regex

if TYPE_CHECKING:  # a type only: lxml is loaded by XLIFF's reader, for an XLIFF catalog
    from lxml import etree

__all__ = [
    "DEFAULT_PROFILES",
    "NS_SLR",
    "Limit",
    "length_flag",
    "limit_of",
    "limits_2",
    "limits_12",
    "profiles_of",
    "storage_flag",
]

_LENGTH = lazy_regex(r"max-length:(\d{1,9})")
_STORAGE = lazy_regex(r"max-storage-(utf-8|utf-16|utf-32):(\d{1,9})")
#: Python codecs without a byte-order mark: the bytes a store holds.
_CODECS = {"utf-8": "utf-8", "utf-16": "utf-16-le", "utf-32": "utf-32-le"}


def length_flag(characters: int) -> str:
    """The flag of a limit of ``characters`` code points."""
    return f"max-length:{characters}"


def storage_flag(codec: str, size: int) -> str:
    """The flag of a limit of ``size`` bytes in ``codec`` (``utf-8``, ``utf-16``, ``utf-32``)."""
    return f"max-storage-{codec}:{size}"


class Limit(NamedTuple):
    """How long a unit's translation may be: in characters, in bytes of a codec, or both."""

    characters: int | None = None
    storage: tuple[str, int] | None = None  # (codec, bytes)

    def problem(self, text: str) -> str | None:
        """Why ``text`` is over this limit (its size and the limit, as the flag writes it), or None."""
        if self.characters is not None and len(text) > self.characters:
            return f"{len(text)} characters, over the limit of {self.characters} ({length_flag(self.characters)})"
        if self.storage is not None:
            codec, size = self.storage
            used = len(text.encode(_CODECS[codec], "surrogatepass"))
            if used > size:
                return f"{used} bytes in {codec}, over the limit of {size} ({storage_flag(codec, size)})"
        return None

    def characters_for(self, text: str) -> int:
        """At most how many characters a text like ``text`` may have to fit: what to ask the engine for.

        Exact for a limit in characters; for one in bytes, the characters of ``text`` scaled by how
        far its bytes are over (the next text is measured again, never assumed to fit).
        """
        room = self.characters if self.characters is not None else len(text)
        if self.storage is not None:
            codec, size = self.storage
            used = len(text.encode(_CODECS[codec], "surrogatepass"))
            if used > size:
                room = min(room, size * len(text) // used)
        return room


@functools.lru_cache(maxsize=1024)
def limit_of(flags: Sequence[str]) -> Limit | None:
    """The limit ``flags`` set (the smallest of each kind), or None: once per distinct flags."""
    characters: list[int] = []
    storage: list[tuple[str, int]] = []
    for flag in flags:
        if flag.startswith("max-"):
            if found := _LENGTH().fullmatch(flag):
                characters.append(int(found.group(1)))
            elif found := _STORAGE().fullmatch(flag):
                storage.append((found.group(1), int(found.group(2))))
    if not (characters or storage):
        return None
    return Limit(min(characters) if characters else None, min(storage, key=lambda s: s[1]) if storage else None)


# --- What an XLIFF unit declares ------------------------------------------------------------------

NS_SLR = "urn:oasis:names:tc:xliff:sizerestriction:2.0"  # the size and length restriction module

#: The standard profiles a 2.x file uses where it declares none: code points, and UTF-8 bytes.
DEFAULT_PROFILES = ("xliff:codepoints", "xliff:utf8")
_STORAGE_PROFILES = {"xliff:utf8": "utf-8", "xliff:utf16": "utf-16", "xliff:utf32": "utf-32"}
# ASCII digits only, as the schemas' integers are: "²" and "٣" are digits to str.isdigit and \d.
_RESTRICTION = lazy_regex(r"\s*(?:[0-9]{1,9}\s*,\s*)?([0-9]{1,9})\s*")  # "max" or "min,max"
_NUMBER = lazy_regex(r"\s*([0-9]{1,9})\s*")


def limits_12(unit: etree._Element) -> tuple[str, ...]:
    """A 1.2 trans-unit's ``maxwidth`` in characters, as a ``max-length`` flag."""
    width = _NUMBER().fullmatch(unit.get("maxwidth") or "")
    if width is None or unit.get("size-unit") != "char":
        return ()
    return (length_flag(int(width.group(1))),)


def profiles_of(file: etree._Element) -> tuple[str, str]:
    """A 2.x file's general and storage profiles (``slr:profiles``), the standard ones by default."""
    found = file.find(f"{{{NS_SLR}}}profiles")
    if found is None:
        return DEFAULT_PROFILES
    return found.get("generalProfile", DEFAULT_PROFILES[0]), found.get("storageProfile", DEFAULT_PROFILES[1])


def limits_2(unit: etree._Element, profiles: tuple[str, str]) -> tuple[str, ...]:
    """A 2.x unit's size and storage restrictions under the standard profiles, as flags."""
    general, storage = profiles
    flags = []
    size = _RESTRICTION().fullmatch(unit.get(f"{{{NS_SLR}}}sizeRestriction") or "")
    if size and general == "xliff:codepoints":
        flags.append(length_flag(int(size.group(1))))
    stored = _RESTRICTION().fullmatch(unit.get(f"{{{NS_SLR}}}storageRestriction") or "")
    if stored and storage in _STORAGE_PROFILES:
        flags.append(storage_flag(_STORAGE_PROFILES[storage], int(stored.group(1))))
    return tuple(flags)
