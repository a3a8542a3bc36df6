"""The run's character budget (``max_characters``): what requests may still be billed."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

__all__ = ["Budget"]


@dataclass
class Budget:
    """Billed characters a run may still spend; None means no limit.

    A request reserves the characters it will be billed before it is sent (the service bills every
    character of the texts, tags included, and nothing for ``context``), so requests in flight can
    never together go beyond the limit. A request may be billed less than it reserved (a beta language
    is billed nothing): one that does not fit beside the requests in flight waits until they are
    settled (:meth:`settled`) before the run is said to have reached its budget.
    """

    limit: int | None
    spent: int = 0
    reserved: int = 0
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

    def reserve(self, cost: int) -> None:
        """Set ``cost`` aside for a request about to be sent."""
        self.reserved += cost

    def settle(self, reserved: int, billed: int) -> None:
        """Replace a reservation by what the request was really billed (0 when it failed)."""
        self.reserved -= reserved
        self.spent += billed
        self._change.set()

    async def settled(self) -> None:
        """Wait until a reservation in flight is settled."""
        self._change.clear()
        await self._change.wait()
