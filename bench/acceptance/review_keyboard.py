"""A keyboard review of a published project's machine translations in a real browser, timed; prints JSON.

What a new user does, as whole commands in fresh processes: Django's catalogs (from the wheel) of
languages it has not finished are put in a project, ``pipeline translate`` fills them with the
embedded service (everything it writes is marked fuzzy), ``pipeline review --no-open`` serves the
page, and a scripted reviewer in Debian's headless Chromium (Selenium, /usr/bin/chromedriver)
reviews ENTRIES entries from the keyboard: ``a`` accepts, ``e`` + text + Ctrl+Enter edits (an edit
the checks refuse is cancelled with Esc and the entry accepted), ``r`` rejects what the checks find
broken, ``n`` keeps one entry in 25 with a note, ``s`` skips one in 15. Then the page's Done
button, ``msgfmt -c`` on every catalog and ``pipeline check``.

Printed: the translate run's seconds, the review's wall seconds for ENTRIES entries and per
decision (key press to the next entry shown: median, 95th percentile, max), the decisions, the
summary the command printed, and msgfmt's and ``pipeline check``'s verdicts. The reviewer reads
nothing, so the figure is what the tool adds to a human's reading time, not a human's time.
With ``--screenshots DIR`` it also saves the page at 1280 and 420 pixels wide (docs/).

Skipped (prints {"skipped": ...}) unless BENCH_REAL=1 or --run: it downloads Django's wheel (~8 MB).
Usage: BENCH_REAL=1 python -m bench.acceptance.review_keyboard [--cache DIR] [--keep DIR] [--entries 100]
       [--languages ro,sl,lt,uk,el] [--screenshots docs]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from selenium.webdriver.remote.webdriver import WebDriver

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.harness.serve import pipeline_exe
from bench.harness.sources import PROJECTS, extract, fetch

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
FLAGS = (
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking "
    "--disable-component-update --disable-sync"
).split()
CONFIG = 'source_lang = "en"\ncatalogs = ["**/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".pipeline-cache"\n'
WAIT = 15.0
TEXT_OF = "const found = document.querySelector(arguments[0]); return found ? found.innerText : '';"


def browser(width: int, profile: str) -> WebDriver:
    """Headless Chromium at ``width`` pixels, driven through the distribution's chromedriver."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}", f"--window-size={width},900"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))


class Reviewer:
    """A scripted reviewer on the page: reads what is shown, presses keys, waits for the page to move on."""

    def __init__(self, driver: WebDriver) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        self.wait = WebDriverWait(driver, WAIT, poll_frequency=0.005)

    def text(self, selector: str) -> str:
        shown: str = self.driver.execute_script(TEXT_OF, selector)
        return shown

    def keys(self, *keys: str, control: bool = False) -> None:
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        chain = ActionChains(self.driver)
        if control:
            chain.key_down(Keys.CONTROL).send_keys(*keys).key_up(Keys.CONTROL).perform()
        else:
            chain.send_keys(*keys).perform()

    def moved(self, before: str) -> bool:
        """Wait until another entry is shown, or the page says why not (True: moved on)."""
        self.wait.until(lambda d: self.text("#entry .where") != before or self.text("#message"))
        return self.text("#entry .where") != before

    def review(self, number: int) -> tuple[str, float]:
        """Decide on the entry shown; the decision and the seconds from the key press to the next entry."""
        from selenium.webdriver.common.keys import Keys

        where, level = self.text("#entry .where"), self.text("#entry .checks")
        started = time.perf_counter()
        keys: tuple[str, ...]
        if "✗" in level:
            decision, keys = "reject", ("r",)
        elif number % 25 == 24:
            self.keys("n")
            self.wait.until(lambda d: d.find_elements("id", "note"))
            self.driver.find_element("id", "note").send_keys("checked by bench/acceptance/review_keyboard.py")
            started = time.perf_counter()
            decision, keys = "note", ()
            self.keys(Keys.ENTER, control=True)
        elif number % 15 == 14:
            decision, keys = "skip", ("s",)
        elif number % 10 == 9:
            self.keys("e")
            area = self.wait.until(lambda d: d.find_element("css selector", "textarea[data-form]"))
            area.send_keys(Keys.CONTROL, Keys.END)
            area.send_keys(" (ok)")
            started = time.perf_counter()
            self.keys(Keys.ENTER, control=True)
            if self.moved(where):
                return "edit", time.perf_counter() - started
            self.keys(Keys.ESCAPE)  # refused by the checks (shown in place): cancel, accept as it was
            decision, keys = "edit refused, accepted", ("a",)
            started = time.perf_counter()
        else:
            decision, keys = "accept", ("a",)
        if keys:
            self.keys(*keys)
        if not self.moved(where):
            raise RuntimeError(f"{where}: {decision} did not move on: {self.text('#message')}")
        return decision, time.perf_counter() - started


def screenshot(url: str, folder: Path, profile: str) -> list[str]:
    """The page at two widths, on a Lithuanian plural (four forms, each with its numbers), placeholders marked."""
    folder.mkdir(parents=True, exist_ok=True)
    widths = ((1280, "review-wide.png"), (420, "review-narrow.png"))
    return [_shoot(url, folder / name, width, profile) for width, name in widths]


def _shoot(url: str, path: Path, width: int, profile: str) -> str:
    driver = browser(width, tempfile.mkdtemp(dir=profile))
    try:
        reviewer = Reviewer(driver)
        driver.get(url)
        reviewer.wait.until(lambda d: reviewer.text("#entry .where"))
        driver.execute_script(
            "const f = document.getElementById('f-language'); f.value = 'lt'; f.dispatchEvent(new Event('change'));"
            "const t = document.getElementById('f-text'); t.value = '%(num)d year';"
            "t.dispatchEvent(new Event('input')); t.blur();"
        )
        reviewer.wait.until(lambda d: "%(num)d year" in reviewer.text("#entry .source"))
        driver.save_screenshot(str(path))
    finally:
        driver.quit()
    return str(path)


def run(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    django = next(p for p in PROJECTS if p.name == "django")
    archive = fetch(django, args.cache, lambda m: print(f"# {m}", file=sys.stderr))
    project = work / "project"
    catalogs = extract(django, archive, project, tuple(args.languages.split(",")))
    (project / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    started = time.perf_counter()
    translate = subprocess.run([pipeline_exe(), "translate"], cwd=project, capture_output=True, text=True)
    translate_seconds = time.perf_counter() - started
    out = work / "review.out"
    with out.open("w") as stdout:
        server = subprocess.Popen(
            [pipeline_exe(), "review", "--no-open", "--port", "0"], cwd=project, stdout=stdout, stderr=subprocess.PIPE
        )
    deadline = time.monotonic() + 60
    while "\n" not in out.read_text() and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    url = out.read_text().split("\n", 1)[0]
    shots = screenshot(url, args.screenshots, str(work)) if args.screenshots else []
    driver = browser(1280, tempfile.mkdtemp(dir=work))
    decisions: list[tuple[str, float]] = []
    try:
        reviewer = Reviewer(driver)
        driver.get(url)
        reviewer.wait.until(lambda d: reviewer.text("#entry .where"))
        started = time.perf_counter()
        for number in range(args.entries):
            decisions.append(reviewer.review(number))
        review_seconds = time.perf_counter() - started
        driver.find_element("id", "done").click()
        server.wait(timeout=WAIT)
    finally:
        driver.quit()
        if server.poll() is None:
            server.kill()
    msgfmt = [
        (
            str(path.relative_to(project)),
            subprocess.run(["msgfmt", "-c", "-o", os.devnull, str(path)], capture_output=True, text=True),
        )
        for path in catalogs
    ]
    check = subprocess.run([pipeline_exe(), "check"], cwd=project, capture_output=True, text=True)
    latencies = sorted(seconds for _, seconds in decisions)
    counts: dict[str, int] = {}
    for decision, _ in decisions:
        counts[decision] = counts.get(decision, 0) + 1
    return {
        "project": f"django ({archive.name}), languages {args.languages}",
        "catalogs": len(catalogs),
        "translate": {
            "exit_code": translate.returncode,
            "seconds": round(translate_seconds, 2),
            "summary": translate.stdout.strip().splitlines()[-1:],
        },
        "review": {
            "entries": len(decisions),
            "seconds": round(review_seconds, 2),
            "per_decision_seconds": {
                "median": round(statistics.median(latencies), 3),
                "p95": round(latencies[int(0.95 * (len(latencies) - 1))], 3),
                "max": round(latencies[-1], 3),
            },
            "decisions": counts,
            "command_printed": out.read_text().splitlines()[1:],
        },
        "msgfmt_c": {
            "catalogs": len(msgfmt),
            "failed": [name for name, done in msgfmt if done.returncode != 0],
            "errors": [done.stderr.strip()[:300] for _, done in msgfmt if done.returncode != 0][:5],
        },
        "pipeline_check": {"exit_code": check.returncode, "summary": check.stderr.strip().splitlines()[-1:]},
        "screenshots": shots,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--run", action="store_true", help="run even without BENCH_REAL=1")
    parser.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "pipeline-bench-real")
    parser.add_argument("--keep", type=Path, help="keep the project here (default: a temporary folder)")
    parser.add_argument("--entries", type=int, default=100)
    parser.add_argument("--languages", default="ro,sl,lt,uk,el", help="Django languages it has not finished")
    parser.add_argument("--screenshots", type=Path, help="save the page at two widths in this folder")
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_REAL") == "1"):
        print(json.dumps({"skipped": "set BENCH_REAL=1 (or pass --run): downloads Django's wheel"}))
        return 0
    missing = [p for p in (CHROMIUM, CHROMEDRIVER, shutil.which("msgfmt")) if not p or not os.access(p, os.X_OK)]
    if missing:
        print(json.dumps({"skipped": "needs chromium, chromium-driver and gettext (apt-get install them)"}))
        return 0
    if args.keep:
        if args.keep.exists():
            shutil.rmtree(args.keep)
        args.keep.mkdir(parents=True)
        result = run(args, args.keep)
    else:
        with tempfile.TemporaryDirectory(prefix="review-bench-") as work:
            result = run(args, Path(work))
    print(json.dumps(result, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
