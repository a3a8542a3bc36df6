"""Opening uploaded ZIP packages (OOXML) without trusting a byte of them.

:func:`inspect` checks the central directory before anything is decompressed: member count,
member names (no absolute paths, ``..``, backslashes, drive letters, control characters or
duplicates), encryption, each declared size, the declared total and the compression ratio of
every large member. :func:`read_member` then decompresses one member with a hard cap, so a
member that is bigger than it declared (a forged header) is stopped at the cap and reported, and
a corrupt stream (CRC, deflate error) is reported instead of raised. Every refusal is a
:class:`PackageError` whose message names the member.
"""

from __future__ import annotations

import io
import re
import zipfile
import zlib
from typing import NamedTuple

from pipeline.service.echo import echo

MAX_MEMBERS = 5000
#: Largest uncompressed member (any part, XML or media).
MAX_MEMBER_BYTES = 64 * 1024 * 1024
#: Largest uncompressed total of all members.
MAX_TOTAL_BYTES = 256 * 1024 * 1024
#: Highest compression ratio accepted for a member past RATIO_FLOOR bytes (XML reaches ~20-50).
MAX_RATIO = 200
RATIO_FLOOR = 1024 * 1024

_DRIVE = re.compile(r"^[A-Za-z]:")


class PackageError(ValueError):
    """The upload is not a ZIP package that may be opened safely."""


class Limits(NamedTuple):
    """The caps :func:`inspect` and :func:`read_member` enforce (smaller in tests)."""

    members: int = MAX_MEMBERS
    member_bytes: int = MAX_MEMBER_BYTES
    total_bytes: int = MAX_TOTAL_BYTES
    ratio: int = MAX_RATIO
    ratio_floor: int = RATIO_FLOOR


DEFAULT_LIMITS = Limits()


def _check_name(name: str) -> None:
    if not name or "\x00" in name or any(ord(ch) < 0x20 for ch in name):
        raise PackageError(f"member name {echo(name)} holds control characters")
    if "\\" in name or name.startswith("/") or _DRIVE.match(name):
        raise PackageError(f"member name {echo(name)} is an absolute or Windows path (path traversal refused)")
    if any(part == ".." for part in name.split("/")):
        raise PackageError(f"member name {echo(name)} climbs out of the package with '..' (path traversal refused)")


def inspect(data: bytes, limits: Limits = DEFAULT_LIMITS) -> zipfile.ZipFile:
    """The package as an open ZipFile once its directory passed every check; PackageError otherwise."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, OSError) as exc:
        raise PackageError(f"not a valid ZIP package: {exc}") from None
    members = archive.infolist()
    if len(members) > limits.members:
        raise PackageError(f"the package has {len(members)} members; at most {limits.members} are accepted")
    seen: set[str] = set()
    total = 0
    for info in members:
        _check_name(info.filename)
        if info.filename.lower() in seen:
            raise PackageError(f"member {echo(info.filename)} appears twice")
        seen.add(info.filename.lower())
        if info.flag_bits & 0x1:
            raise PackageError(f"member {echo(info.filename)} is encrypted")
        if info.file_size > limits.member_bytes:
            raise PackageError(
                f"member {echo(info.filename)} declares {info.file_size} bytes uncompressed; "
                f"at most {limits.member_bytes} are accepted"
            )
        if info.file_size > limits.ratio_floor and info.file_size > limits.ratio * max(info.compress_size, 1):
            raise PackageError(
                f"member {echo(info.filename)} expands {info.file_size // max(info.compress_size, 1)}-fold "
                f"(at most {limits.ratio}-fold is accepted): refused as a possible zip bomb"
            )
        total += info.file_size
        if total > limits.total_bytes:
            raise PackageError(
                f"the package declares more than {limits.total_bytes} bytes uncompressed in total; refused"
            )
    return archive


def read_member(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """The uncompressed bytes of one member, never more than its declared size or the member cap."""
    cap = min(info.file_size, limits.member_bytes)
    try:
        with archive.open(info) as stream:
            data = stream.read(cap + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, NotImplementedError, ValueError, OSError) as exc:
        raise PackageError(f"member {echo(info.filename)} cannot be decompressed: {exc}") from None
    if len(data) > cap:
        raise PackageError(f"member {echo(info.filename)} is larger than it declares; refused as a possible zip bomb")
    return data
