"""Which texts are being sent, by cache key: a text two parts need at once is sent by one of them only.

A window's parts overlap (the next part's requests go out while the last ones of the part before
are in flight), and two parts may need the same text (the same message in two catalogs of one
language). The part that claims a text first sends it; the other waits until that part is done
with it (answered, failed, or left unsent by a stop), then looks the text up in the cache like
any other, and claims what it still misses. Nothing is sent, or paid for, twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping
from typing import TypeVar

__all__ = ["Claims"]

T = TypeVar("T")


class Claims:
    """The cache keys of the texts a part is sending, each with what its waiters wait on.

    A key's event is made when another part first waits on it: most texts are never waited on, and
    an event per text held (a deque inside) cost several hundred bytes a segment, a fifth of a large
    run's peak memory.
    """

    def __init__(self) -> None:
        self._held: dict[str, asyncio.Event | None] = {}

    def take(self, texts: Mapping[str, T]) -> tuple[dict[str, T], dict[str, T]]:
        """Claim the texts nobody holds; returns those (to send) and the ones another part holds (to wait for)."""
        mine: dict[str, T] = {}
        theirs: dict[str, T] = {}
        for key, item in texts.items():
            if key in self._held:
                theirs[key] = item
            else:
                self._held[key] = None
                mine[key] = item
        return mine, theirs

    def release(self, keys: Iterable[str]) -> None:
        """The part holding ``keys`` is done with them: whoever waits looks them up again."""
        for key in keys:
            waited = self._held.pop(key, None)
            if waited is not None:
                waited.set()

    async def wait(self, keys: Iterable[str]) -> None:
        """Until no part holds any of ``keys`` any more (each released once)."""
        for key in keys:
            if key not in self._held:
                continue
            waited = self._held[key]
            if waited is None:
                waited = self._held[key] = asyncio.Event()
            await waited.wait()
