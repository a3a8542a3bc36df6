"""Fixtures shared by every test folder."""

from __future__ import annotations

import gc
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from lxml import etree

from pipeline.files import swap

REPO = Path(__file__).resolve().parent.parent
DATA = REPO / "tests" / "data"

# No property has a deadline: speed is the bench's business (bench/), and hypothesis's default 200 ms
# per example failed pure properties on a machine at load 25.
settings.register_profile("suite", deadline=None)
settings.load_profile("suite")
# Properties that write and read files: a tmp_path shared by the examples is fine (each example writes
# over it), and a file system's latency is not the code's.
settings.register_profile(
    "files", deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)


@pytest.fixture(autouse=True)
def user_cache_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh user cache folder per test: runs without a configured cache folder keep theirs there,
    and a test must neither see another's cache nor write into the real ``~/.cache``."""
    home = tmp_path_factory.mktemp("xdg-cache")
    monkeypatch.setenv("XDG_CACHE_HOME", str(home))
    return home


@pytest.fixture(params=[True, False])
def exchange(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether the test's catalog writes swap with an atomic exchange (Linux's renameat2): each test that
    takes it runs both ways, the other as on systems without one (the last check made before the rename)."""
    if not request.param:
        monkeypatch.setattr(swap, "_exchange", lambda tmp, target: False)
    return bool(request.param)


@pytest.fixture
def data_dir() -> Path:
    """The read-only fixture files in tests/data."""
    return DATA


@pytest.fixture
def msgfmt_check() -> Callable[[Path], None]:
    """Check a PO file with GNU ``msgfmt --check`` when it is installed; skip the check otherwise."""
    msgfmt = shutil.which("msgfmt")

    def check(path: Path) -> None:
        if msgfmt is None:
            pytest.skip("GNU msgfmt is not installed")
        done = subprocess.run([msgfmt, "--check", "-o", "/dev/null", str(path)], capture_output=True, text=True)
        assert done.returncode == 0, f"msgfmt --check {path}:\n{done.stderr}"

    return check


#: Where Debian's php-symfony-translation keeps the XLIFF schemas (1.2 strict, 2.0, and the xml: one they import).
XLIFF_SCHEMAS = Path("/usr/share/php/Symfony/Component/Translation/Resources/schemas")
_XLIFF_SCHEMA_FILES = {
    "urn:oasis:names:tc:xliff:document:1.2": "xliff-core-1.2-strict.xsd",
    "urn:oasis:names:tc:xliff:document:2.0": "xliff-core-2.0.xsd",
}


@pytest.fixture(scope="session")
def xliff_schema_check() -> Callable[[Path], None]:
    """Validate an XLIFF file against its version's official schema (the copies php-symfony-translation
    ships, as Symfony validates with them); skip the check when they are not installed."""
    schemas: dict[str, etree.XMLSchema] = {}

    def schema(namespace: str) -> etree.XMLSchema:
        if namespace not in schemas:
            path = XLIFF_SCHEMAS / _XLIFF_SCHEMA_FILES[namespace]
            # The xml: namespace's schema is imported from the W3C's site or a folder not shipped: the local copy.
            text = re.sub(
                r'(namespace="http://www.w3.org/XML/1998/namespace"\s+schemaLocation=")[^"]*"',
                lambda m: m.group(1) + (XLIFF_SCHEMAS / "xml.xsd").as_uri() + '"',
                path.read_text(encoding="utf-8"),
            )
            schemas[namespace] = etree.XMLSchema(etree.fromstring(text.encode("utf-8"), base_url=str(path)))
        return schemas[namespace]

    def check(path: Path) -> None:
        if not (XLIFF_SCHEMAS / "xml.xsd").is_file():
            pytest.skip("the XLIFF schemas are not installed (Debian: php-symfony-translation)")
        document = etree.parse(str(path))
        found = schema(etree.QName(document.getroot()).namespace or "")
        assert found.validate(document), f"{path}: {found.error_log}"

    return check


def pytest_unconfigure(config: pytest.Config) -> None:
    """Collect the session's garbage once, then freeze what is left before pytest's own last collections.

    pytest collects garbage five times as it ends, to report finalizers that fail. A worker of
    ``make test`` holds close to a million objects by then, and on a loaded machine those full
    collections outlast the 5 s execnet gives a worker to end before it interrupts it: a
    KeyboardInterrupt traceback after a run that passed. Collected once here, under the same hook,
    the garbage is reported all the same, and the later collections skip what is frozen.
    """
    gc.collect()
    gc.freeze()


def pytest_report_header() -> str | None:
    """Say so when the sample catalogs cannot be read as committed (no git): a translated copy changes results."""
    from tests.sample_project import SAMPLES_MUTABLE

    if SAMPLES_MUTABLE:
        return "sample_locales/: read from the working tree (no git checkout); `make translate` changes what tests see"
    return None
