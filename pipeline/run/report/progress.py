"""Progress of the sending stage, per target language: redrawn lines on a terminal, log lines elsewhere.

Three shapes, chosen by :func:`for_stream`: a terminal gets one line per language redrawn in
place (ANSI cursor movement, at most ten redraws a second); a pipe or CI log gets a plain line
when a language passes each quarter and when it is done; ``--quiet`` gets nothing.

On a terminal the screen a run leaves is true: a round's lines, once it is done, stay as they
were last drawn and the next round draws below them, and the run's messages (:meth:`Progress.around`)
are written above the lines being redrawn, never under them (where the next redraw would erase them).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping
from typing import TextIO

REDRAW_SECONDS = 0.1
LOG_STEPS = 4  # plain lines at 25 %, 50 %, 75 % and 100 %
BAR_WIDTH = 24


class Progress:
    """Counts segments done and characters billed per language; this base class shows nothing."""

    def __init__(self) -> None:
        self.total: dict[str, int] = {}
        self.done: dict[str, int] = {}
        self.billed: dict[str, int] = {}
        self.rounds = 0  # rounds sending now: the parts of a window overlap

    def start(self, totals: Mapping[str, int]) -> None:
        """Begin with the number of segments each language will send (added to a round still sending)."""
        self.rounds += 1
        if self.rounds == 1:
            self.total, self.done, self.billed = {}, {}, {}
        for lang, n in totals.items():
            if n:
                self.total[lang] = self.total.get(lang, 0) + n
                self.done.setdefault(lang, 0)
                self.billed.setdefault(lang, 0)
        self.total = dict(sorted(self.total.items()))
        self._show(None)

    def advance(self, lang: str, segments: int, billed: int = 0) -> None:
        """``segments`` of ``lang`` were answered (translated or failed), ``billed`` characters spent."""
        if lang not in self.total:
            return
        self.done[lang] += segments
        self.billed[lang] += billed
        self._show(lang)

    def finish(self) -> None:
        """A round's sending is over (possibly stopped early); the display ends with the last round sending."""
        self.rounds -= 1
        if self.rounds == 0:
            self._finished()

    def _finished(self) -> None:
        pass

    def around(self, log: Callable[[str], None]) -> Callable[[str], None]:
        """``log``, for messages written while this display is on screen."""
        return log

    def line(self, lang: str) -> str:
        """``DE 120/300 segments, 4512 characters billed``."""
        return f"{lang} {self.done[lang]}/{self.total[lang]} segments, {self.billed[lang]} characters billed"

    def _show(self, lang: str | None) -> None:
        pass


class LogProgress(Progress):
    """Plain lines, for logs: each language at every quarter of its segments."""

    def __init__(self, write: Callable[[str], None]) -> None:
        super().__init__()
        self._write = write
        self._step: dict[str, int] = {}

    def _show(self, lang: str | None) -> None:
        if lang is None:  # a round started: its languages from their first quarter, the others where they were
            self._step = {lang: self._step.get(lang, 0) if self.rounds > 1 else 0 for lang in self.total}
            return
        step = self.done[lang] * LOG_STEPS // self.total[lang]
        if step > self._step[lang]:
            self._step[lang] = step
            self._write(self.line(lang))


class TerminalProgress(Progress):
    """One line per language, redrawn in place."""

    def __init__(self, stream: TextIO, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self._stream = stream
        self._clock = clock
        self._drawn = 0  # lines on screen that the next redraw replaces
        self._last = float("-inf")

    def _finished(self) -> None:
        """Draw the final counts, and leave them: the next round draws below."""
        if self.total:
            self._draw()
        self._drawn = 0

    def around(self, log: Callable[[str], None]) -> Callable[[str], None]:
        """``log``, writing above the lines being redrawn: they are cleared, the message written, then drawn again."""

        def write(message: str) -> None:
            if not self._drawn:
                log(message)
                return
            self._stream.write(f"\x1b[{self._drawn}F\x1b[0J")  # up to the first line, then clear to the end
            self._drawn = 0
            log(message)
            self._draw()

        return write

    def _show(self, lang: str | None) -> None:
        now = self._clock()
        if lang is None or now - self._last >= REDRAW_SECONDS:
            self._last = now
            self._draw()

    def _draw(self) -> None:
        out = [f"\x1b[{self._drawn}F"] if self._drawn else []
        for lang, total in self.total.items():
            filled = BAR_WIDTH * self.done[lang] // total
            bar = "#" * filled + "-" * (BAR_WIDTH - filled)
            out.append(
                f"\x1b[2K{lang:>7} [{bar}] {self.done[lang]}/{total} segments, {self.billed[lang]} characters billed\n"
            )
        self._drawn = len(self.total)
        self._stream.write("".join(out))
        self._stream.flush()


def for_stream(stream: TextIO, quiet: bool, log: Callable[[str], None]) -> Progress:
    """The progress display that suits ``stream``: nothing when quiet, redrawn lines on a terminal, else log lines."""
    if quiet:
        return Progress()
    try:
        interactive = stream.isatty() and os.environ.get("TERM") != "dumb"  # dumb terminals cannot move the cursor
    except (AttributeError, ValueError):
        interactive = False
    return TerminalProgress(stream) if interactive else LogProgress(log)
