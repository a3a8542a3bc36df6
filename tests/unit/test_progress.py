"""Progress display: redrawn lines on a terminal, quarter-step log lines elsewhere, nothing when quiet."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from pipeline.config import Settings
from pipeline.run.records import RunReport
from pipeline.run.report.progress import LogProgress, Progress, TerminalProgress, for_stream
from tests.run_fakes import FakeService, project, run


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_for_stream_picks_the_display() -> None:
    lines: list[str] = []
    assert type(for_stream(Tty(), quiet=True, log=lines.append)) is Progress
    assert isinstance(for_stream(Tty(), quiet=False, log=lines.append), TerminalProgress)
    assert isinstance(for_stream(io.StringIO(), quiet=False, log=lines.append), LogProgress)


def test_log_lines_at_each_quarter_per_language() -> None:
    lines: list[str] = []
    progress = LogProgress(lines.append)
    progress.start({"DE": 8, "FR": 2, "PL": 0})
    for _ in range(8):
        progress.advance("DE", 1, 10)
    progress.advance("FR", 2, 7)
    progress.advance("XX", 5)  # not started: ignored
    progress.finish()
    assert lines == [f"DE {n}/8 segments, {10 * n} characters billed" for n in (2, 4, 6, 8)] + [
        "FR 2/2 segments, 7 characters billed"
    ]


def test_terminal_lines_are_redrawn_in_place() -> None:
    stream, now = Tty(), [0.0]
    progress = TerminalProgress(stream, clock=lambda: now[0])
    progress.start({"DE": 4, "PL": 2})
    first = stream.getvalue()
    assert first.count("\n") == 2 and "\x1b[" not in first.split("\x1b[2K", 1)[0]
    progress.advance("DE", 1, 5)  # within the redraw interval: not drawn
    assert stream.getvalue() == first
    now[0] = 1.0
    progress.advance("DE", 1, 5)
    redraw = stream.getvalue()[len(first) :]
    assert redraw.startswith("\x1b[2F") and "2/4 segments, 10 characters billed" in redraw
    progress.advance("PL", 2, 3)
    progress.finish()
    final = stream.getvalue().rsplit("\x1b[2F", 1)[1]
    assert "DE [############------------] 2/4" in final and "PL [########################] 2/2" in final


class Rounds(LogProgress):
    """Log lines, and what every round (a part's sending) counted, summed over the run."""

    def __init__(self, lines: list[str]) -> None:
        super().__init__(lines.append)
        self.rounds_done: dict[str, tuple[int, int, int]] = {}  # lang -> total, done, billed of ended rounds

    def finish(self) -> None:
        if self.rounds == 1:  # the display ends: what it showed is summed (the next round starts afresh)
            for lang, total in self.total.items():
                was = self.rounds_done.get(lang, (0, 0, 0))
                self.rounds_done[lang] = (was[0] + total, was[1] + self.done[lang], was[2] + self.billed[lang])
        super().finish()


def test_a_run_reports_progress_for_every_segment_sent(tmp_path: Path) -> None:
    lines: list[str] = []
    progress = Rounds(lines)
    service = FakeService()
    report = run_with_progress(project(tmp_path, langs=("de", "pl")), service, progress)
    # The parts of a run are shown together while they overlap, in turn when one ends before the next sends.
    assert set(progress.rounds_done) == {"DE", "PL"}
    assert all(total == done for total, done, _ in progress.rounds_done.values())
    assert sum(billed for _, _, billed in progress.rounds_done.values()) == report.totals.billed_characters
    last = [line for line in lines if line.startswith("DE")][-1]  # "DE done/total ...": the last round's, all done
    done, total = last.split()[1].split("/")
    assert done == total


def run_with_progress(settings: Settings, service: FakeService, progress: Progress) -> RunReport:
    from pipeline.run.orchestrate import RunOptions, run_translate

    return run_translate(
        settings, RunOptions(), log=lambda m: None, client_factory=service.factory(), progress=progress
    )


def test_quiet_runs_print_nothing(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(project(tmp_path), FakeService())
    assert capsys.readouterr().err == ""


class Screen(Tty):
    """What a terminal shows of what was written: lines, ``ESC[nF`` (up n lines), ``ESC[2K``, ``ESC[0J``."""

    def lines(self) -> list[str]:
        import re

        rows, row = [""], 0
        for token in re.split(r"(\x1b\[\d*[FKJ]|\n)", self.getvalue()):
            if token == "\n":
                row += 1
                rows += [""] * (row + 1 - len(rows))
            elif token.startswith("\x1b[") and token.endswith("F"):
                row = max(0, row - int(token[2:-1] or 1))
            elif token == "\x1b[2K":
                rows[row] = ""
            elif token == "\x1b[0J":
                del rows[row + 1 :]
                rows[row] = ""
            elif token:
                rows[row] += token
        return [r for r in rows if r]


def test_the_final_screen_keeps_every_rounds_lines_and_every_message() -> None:
    screen, now = Screen(), [0.0]
    progress = TerminalProgress(screen, clock=lambda: now[0])

    def write(message: str) -> None:
        screen.write(f"pipeline: {message}\n")

    log = progress.around(write)
    log("using the embedded local service")
    for lang in ("DE", "FR"):  # two windows: one round each, a message while the lines are on screen
        progress.start({lang: 3})
        log(f"sending 3 segments of {lang}")
        now[0] += 1
        progress.advance(lang, 1)
        now[0] += 1
        progress.advance(lang, 2, 9)
        progress.finish()
    assert screen.lines() == [
        "pipeline: using the embedded local service",
        "pipeline: sending 3 segments of DE",
        f"     DE [{'#' * 24}] 3/3 segments, 9 characters billed",
        "pipeline: sending 3 segments of FR",
        f"     FR [{'#' * 24}] 3/3 segments, 9 characters billed",
    ]
