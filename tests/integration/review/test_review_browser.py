"""``pipeline review`` in a real browser: Debian's Chromium, driven by Selenium through Debian's chromedriver.

One ``pipeline review --no-open --port 0`` serves the module (a project of PO, XLIFF 1.2 and XLIFF 2
catalogs awaiting review), and one headless Chromium drives it from the keyboard as a reviewer
would. Each test works on catalogs of its own, chosen with the page's filters. Skipped, saying
why, where Chromium or its driver is missing (``make test`` installs them as root with apt-get).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from pipeline.catalogs import Unit

if TYPE_CHECKING:
    from selenium.webdriver.chrome.webdriver import WebDriver

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.model import Severity
from pipeline.run.gate import check_unit, plural_usage
from tests.review_project import PO, REVIEW_DATA, XLIFF_2, XLIFF_12, review_project
from tests.waiting import Lines

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[3]
CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
#: The flags this machine's Chromium needs headless, and nothing it would fetch by itself.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)
CONFLICT = "locale/de/LC_MESSAGES/conflict.po"
#: Seconds a wait for the page or the process gives up after: a safety net, they take milliseconds.
WAIT_SECONDS = 60


def unit_in(path: Path, source: str) -> Unit:
    return next(u for u in read_catalog(path).units if u.sources[0] == source)


def gate_errors(path: Path, source: str, targets: list[str]) -> list[str]:
    """What the run's gate says against ``targets`` as the translation of the unit with ``source``."""
    catalog = read_catalog(path)
    unit = next(u for u in catalog.units if u.sources[0] == source)
    often, one_form, _ = plural_usage(catalog.plural)
    return [p.reason for p in check_unit(unit, targets, catalog, often, one_form) if p.severity is Severity.ERROR]


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("review-project")
    review_project(root)
    shutil.copyfile(REVIEW_DATA / "awaiting_review.po", root / CONFLICT)
    return root


@pytest.fixture(scope="module")
def server(project: Path) -> Iterator[tuple[str, subprocess.Popen[bytes], Lines]]:
    """``pipeline review --no-open --port 0`` on the project: the page's URL (with its token), process, stdout."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "review", "--no-open", "--port", "0"],
        cwd=project,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None
    out = Lines(process.stdout)
    url = out.first().rstrip("\n")  # printed once it listens
    if not url.startswith("http://127.0.0.1:"):
        process.kill()
        pytest.fail(f"pipeline review printed {url!r} first; stderr: {process.communicate()[1]!r}")
    yield url, process, out
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=WAIT_SECONDS)


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    """A headless Chromium of its own (fresh profile), driven through the distribution's chromedriver."""
    missing = [path for path in (CHROMIUM, CHROMEDRIVER) if not os.access(path, os.X_OK)]
    if missing:
        needed = "apt-get install chromium chromium-driver (make test does, as root)"
        pytest.skip(f"{' and '.join(missing)} missing: {needed}")
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed (the [test] extra)")
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    with tempfile.TemporaryDirectory(prefix="review-chromium-") as profile:
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))  # no Selenium Manager
        try:
            yield driver
        finally:
            driver.quit()


class Page:
    """The review page in the browser, used as a reviewer would: filters, keys, what is shown."""

    def __init__(self, driver: WebDriver, url: str) -> None:
        from selenium.webdriver.support.ui import WebDriverWait

        self.driver = driver
        self.wait = WebDriverWait(driver, WAIT_SECONDS)
        driver.get(url)
        self.wait.until(lambda d: d.find_elements("css selector", "#entry .where, #entry .empty"))

    def choose(self, select_id: str, value: str) -> None:
        from selenium.webdriver.support.ui import Select

        Select(self.driver.find_element("id", select_id)).select_by_value(value)
        self.wait.until(lambda d: self.where().startswith(value) or select_id != "f-catalog")

    def text_of(self, selector: str) -> str:
        """The text of the first element ``selector`` finds ("" when none), read in one step as the page redraws."""
        script = "const found = document.querySelector(arguments[0]); return found ? found.innerText : '';"
        result: str = self.driver.execute_script(script, selector)
        return result

    def where(self) -> str:
        return self.text_of("#entry .where")

    def source(self) -> str:
        return self.text_of("#entry .source .text")

    def translation(self) -> str:
        return self.text_of("#entry .target .text")

    def press(self, *keys: str) -> None:
        """Press each key in turn; ``Keys.CONTROL`` first holds Control down while the others are pressed."""
        from selenium.webdriver.common.action_chains import ActionChains
        from selenium.webdriver.common.keys import Keys

        actions = ActionChains(self.driver)
        if keys[0] == Keys.CONTROL:
            actions.key_down(Keys.CONTROL).send_keys(*keys[1:]).key_up(Keys.CONTROL).perform()
        else:
            actions.send_keys(*keys).perform()

    def decide(self, *keys: str) -> None:
        """Press ``keys`` on the entry shown and wait until the page has moved on from it (or said why not)."""
        before, said = self.where(), self.message()  # a message still shown from an earlier step is no answer
        self.press(*keys)
        self.wait.until(lambda d: self.where() != before or self.message() not in ("", said))

    def message(self) -> str:
        return self.text_of("#message")

    def replace_text(self, text: str) -> None:
        from selenium.webdriver.common.keys import Keys

        area = self.wait.until(lambda d: d.find_element("css selector", "textarea[data-form]"))
        area.send_keys(Keys.CONTROL, "a")
        area.send_keys(text)


def test_the_keyboard_path_on_a_po_catalog(
    server: tuple[str, subprocess.Popen[bytes], Lines],
    browser: WebDriver,
    project: Path,
    msgfmt_check: Callable[[Path], None],
) -> None:
    from selenium.webdriver.common.keys import Keys

    page = Page(browser, server[0])
    page.choose("f-catalog", PO)
    path = project / PO
    assert page.source() == "Settings" and page.translation() == "Einstellungen"
    page.decide("a")  # accept
    assert unit_in(path, "Settings").state is UnitState.TRANSLATED
    assert page.source() == "Upload files"
    page.press("e")
    page.replace_text("Dateien übertragen")
    page.decide(Keys.CONTROL, Keys.ENTER)  # edit, then save and accept
    assert unit_in(path, "Upload files").targets == ("Dateien übertragen",)
    assert unit_in(path, "Upload files").state is UnitState.TRANSLATED
    assert page.source() == "%(name)s uploaded <b>%(count)d</b> files"
    before = path.read_bytes()
    page.press("e")
    page.replace_text("%(name)s hat Dateien hochgeladen")  # the tag and the count dropped
    page.press(Keys.CONTROL, Keys.ENTER)
    page.wait.until(lambda d: page.message())
    expected = gate_errors(path, "%(name)s uploaded <b>%(count)d</b> files", ["%(name)s hat Dateien hochgeladen"])
    assert expected and page.message() == "\n".join(["Not written:", *expected])  # the gate's reasons, in place
    assert path.read_bytes() == before  # refused: nothing written
    page.press(Keys.ESCAPE)
    page.decide("r")  # reject
    assert unit_in(path, "%(name)s uploaded <b>%(count)d</b> files").state is UnitState.UNTRANSLATED
    page.press("n")
    page.wait.until(lambda d: d.find_element("id", "note")).send_keys("„Zugriff“ laut Glossar")
    page.decide(Keys.CONTROL, Keys.ENTER)  # keep with a note
    assert "# review: „Zugriff“ laut Glossar\n" in path.read_text(encoding="utf-8")
    assert unit_in(path, "{count} person has access").state is UnitState.FUZZY
    msgfmt_check(path)


def test_accept_reject_and_a_note_on_xliff_12_and_2(
    server: tuple[str, subprocess.Popen[bytes], Lines],
    browser: WebDriver,
    project: Path,
    xliff_schema_check: Callable[[Path], None],
) -> None:
    from selenium.webdriver.common.keys import Keys

    page = Page(browser, server[0])
    page.choose("f-catalog", XLIFF_12)
    assert page.source() == 'Hello <g id="1">world</g>'
    page.decide("a")
    page.decide("r")
    text = (project / XLIFF_12).read_text(encoding="utf-8")
    assert '<target state="signed-off" state-qualifier="leveraged-mt">Bonjour <g id="1">monde</g></target>' in text
    assert '<target state="needs-translation"></target>' in text
    xliff_schema_check(project / XLIFF_12)
    page.choose("f-catalog", XLIFF_2)
    page.press("n")  # XLIFF 2 keeps notes per unit: the note goes into the unit's <notes>
    page.wait.until(lambda d: d.find_element("id", "note")).send_keys("„{name}“ w cudzysłowie?")
    page.decide(Keys.CONTROL, Keys.ENTER)
    page.decide("r")
    units = read_catalog(project / XLIFF_2).units
    assert [u.state for u in units] == [UnitState.FUZZY, UnitState.UNTRANSLATED]
    assert units[0].notes == "„{name}“ w cudzysłowie?"
    xliff_schema_check(project / XLIFF_2)


def test_a_save_by_another_program_while_the_page_is_open_is_not_lost(
    server: tuple[str, subprocess.Popen[bytes], Lines], browser: WebDriver, project: Path
) -> None:
    page = Page(browser, server[0])
    page.choose("f-catalog", CONFLICT)
    assert page.source() == "Settings" and page.translation() == "Einstellungen"
    path = project / CONFLICT
    saved = path.read_text(encoding="utf-8").replace('msgstr "Einstellungen"', 'msgstr "Optionen"')
    path.write_text(saved, encoding="utf-8")  # a translator saves the catalog in another program
    page.press("a")
    page.wait.until(lambda d: page.message())
    assert "saved with a change to this entry" in page.message()
    assert path.read_text(encoding="utf-8") == saved  # not overwritten
    assert page.translation() == "Optionen"  # the entry as saved, read again
    page.decide("a")  # looked at again, accepted
    assert unit_in(path, "Settings").targets == ("Optionen",)
    assert unit_in(path, "Settings").state is UnitState.TRANSLATED


def test_a_request_without_the_token_is_refused(
    server: tuple[str, subprocess.Popen[bytes], Lines], browser: WebDriver
) -> None:
    url = server[0]
    base = url.split("/?token=")[0]
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{base}/api/entries", timeout=WAIT_SECONDS)
    assert refused.value.code == 403
    browser.get(f"{base}/")
    assert "missing or wrong token" in browser.find_element("tag name", "body").text


def test_done_ends_the_review_with_the_summary_per_language(
    server: tuple[str, subprocess.Popen[bytes], Lines], browser: WebDriver
) -> None:
    url, process, out = server
    page = Page(browser, url)
    browser.find_element("id", "done").click()
    page.wait.until(lambda d: d.find_elements("css selector", ".finished"))
    shown = [p.text for p in browser.find_elements("css selector", ".finished p")]
    assert process.wait(timeout=WAIT_SECONDS) == 0
    lines = out.join().splitlines()
    assert lines[0] == url
    summary = lines[1].removeprefix("pipeline review: ").split("; ")
    assert summary == [line for line in shown if ": " in line]  # what the page said, per language
    assert lines[2].startswith("pipeline review: ") and lines[2].endswith(" entries still await review")
