"""The run's character budget (``max_characters``): what requests may still be billed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Budget"]


@dataclass
class Budget:
    """Billed characters a run may still spend; None means no limit.

    A request reserves the characters it will be billed before it is sent (:meth:`cost`: the service
    bills every character of the texts, tags included, nothing for ``context``, and nothing at all
    for a beta target language), so requests in flight can never together go beyond the limit. A
    request may be billed less than it reserved (a service that bills less than the rules say): one
    that does not fit beside the requests in flight waits until they are settled (:meth:`settled`)
    before the run is said to have reached its budget.
    """

    limit: int | None
    spent: int = 0
    reserved: int = 0
    #: Target codes the service bills nothing (its beta languages), once its language list was read.
    free: frozenset[str] = frozenset()
    #: Free targets the service billed all the same: from then on their requests reserve what they send.
    charged: set[str] = field(default_factory=set)
    _change: asyncio.Event = field(default_factory=asyncio.Event, repr=False, compare=False)

    @property
    def left(self) -> int | None:
        """What may still be spent (None: no limit)."""
        return None if self.limit is None else max(0, self.limit - self.spent - self.reserved)

    def fitting(self, costs: Sequence[int]) -> int:
        """How many of ``costs``, taken in order, fit in what is left."""
        if self.limit is None:
            return len(costs)
        room, count = self.limit - self.spent - self.reserved, 0
        for cost in costs:
            if cost > room:
                break
            room -= cost
            count += 1
        return count

    def cost(self, target: str, characters: int) -> int:
        """What ``characters`` of text into ``target`` will be billed: all of them, or none for a beta target."""
        return 0 if target in self.free and target not in self.charged else characters

    def reserve(self, cost: int) -> None:
        """Set ``cost`` aside for a request about to be sent."""
        self.reserved += cost

    def settle(self, reserved: int, billed: int, target: str = "") -> None:
        """Replace a reservation by what the request into ``target`` was really billed (0 when it failed)."""
        self.reserved -= reserved
        self.spent += billed
        if billed > reserved:  # a target said to be free was billed: its next requests reserve what they send
            self.charged.add(target)
        self._change.set()

    async def settled(self) -> None:
        """Wait until a reservation in flight is settled."""
        self._change.clear()
        await self._change.wait()
