"""A window's turn in a run: the next window starts while it is answered and written, and writes after it.

Windows overlap so that the service never waits for a window boundary (:mod:`.work`): once a
window has cut its last part, the next one is locked, scanned and sends, while the last answers
of the one before are judged and it is written. A :class:`Turn` is what two neighbouring windows
know of each other: whether the one before is still open (it holds its catalogs; its stages count
the seconds), when it is written (the next writes after it, and nothing if it failed), and which of
them reads the account's usage after their requests.
"""

from __future__ import annotations

import asyncio

__all__ = ["Turn"]


class Turn:
    """One window's place in the run: when the next may start, whether one has, and when it may write."""

    def __init__(self, before: asyncio.Future[None] | None, last: bool = False) -> None:
        self.before = before  # the window before, while it may still be open
        self.last = last  # no window is to follow: what ends the run may overlap the read after its requests
        self.cut = asyncio.Event()  # every part of this window is cut (or it ended): the next may start
        self.next: Turn | None = None  # the window after, once it has started
        #: The run's answered requests when a window before, followed by this one, began: it left the
        #: read after its requests to this window.
        self.owed: int | None = None

    @property
    def followed(self) -> bool:
        """Whether a later window has started."""
        return self.next is not None

    def open_before(self) -> bool:
        """Whether the window before is still open (holding its catalogs)."""
        return self.before is not None and not self.before.done()

    def counts(self) -> bool:
        """Whether the window's seconds count in the report's timings now: not while the window before is open (its
        stages count them; the seconds this window spent meanwhile then go to whichever stage of it comes next)."""
        return not self.open_before()

    async def written_before(self) -> bool:
        """Wait until the window before is written and saved (or ended); whether it ended well."""
        if self.before is None:
            return True
        await asyncio.wait([self.before])
        return not self.before.cancelled() and self.before.exception() is None
