"""Key-based XLIFF (Symfony's ``post.edit``) in the review: the text the key stands for is the source shown
and judged, as ``translate`` sends it and ``check`` compares with; the key is shown beside it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.catalogs import UnitState, read_catalog
from pipeline.config import Settings, load_settings
from pipeline.review import views
from pipeline.review.session import Refused, Session
from tests.run_fakes import FakeService, run

SYMFONY = Path(__file__).resolve().parents[2] / "data" / "code" / "symfony"
RU = "symfony/messages+intl-icu.ru.xlf"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    shutil.copytree(SYMFONY, tmp_path / "symfony")
    (tmp_path / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["symfony/*.xlf"]\n[service]\nurl = "http://fake.invalid"\n'
        '[cache]\ndir = ".cache"\n',
        encoding="utf-8",
    )
    settings = load_settings(tmp_path / "pipeline.toml")
    run(settings, FakeService(languages=("ru", "pl")))
    return settings


def test_the_source_shown_is_the_text_the_key_stands_for_with_the_key_beside_it(settings: Settings) -> None:
    session = Session(settings, warn=pytest.fail)
    rows = {row["key"]: row for row in views.listing(session)["entries"] if row["catalog"] == RU}
    assert rows["post.edit"]["source"] == "Edit post #{id, number}"
    assert rows["post.edit"]["target"] == "[RU] Edit post #{id, number}"
    entry = session.entries[rows["post.edit"]["id"]]
    detail = views.detail(session, entry)
    assert detail["key"] == "post.edit"
    assert ["".join(text for text, _ in form) for form in detail["sources"]] == ["Edit post #{id, number}"]
    assert ("{id, number}", "icu-arg") in [tuple(piece) for piece in detail["forms"][0]["pieces"]]
    assert detail["checks"] == [] and entry.level == "ok"  # judged against the text, not the key


def test_an_edit_is_judged_against_the_text_and_written_under_the_key(settings: Settings) -> None:
    session = Session(settings, warn=pytest.fail)
    row = next(r for r in views.listing(session)["entries"] if r["key"] == "post.edit" and r["catalog"] == RU)
    entry = session.entries[row["id"]]
    with pytest.raises(Refused, match="id"):
        session.edit(entry.id, entry.version, ["Изменить статью"])  # the text's {id, number} is missing
    session.edit(entry.id, entry.version, ["Изменить статью №{id, number}"])
    unit = next(u for u in read_catalog(settings.root / RU).units if u.sources[0] == "post.edit")
    assert unit.targets == ("Изменить статью №{id, number}",) and unit.state is UnitState.TRANSLATED


def test_a_rejected_keyed_entry_is_remembered_as_the_run_names_it(settings: Settings) -> None:
    session = Session(settings, warn=pytest.fail)
    row = next(r for r in views.listing(session)["entries"] if r["key"] == "post.edit" and r["catalog"] == RU)
    session.reject(row["id"], row["version"])
    report = run(settings, FakeService(languages=("ru", "pl")))
    unit = next(u for u in read_catalog(settings.root / RU).units if u.sources[0] == "post.edit")
    assert unit.state is UnitState.UNTRANSLATED
    assert [i.reason for i in report.issues if i.catalog == RU and "rejected" in i.reason] == [
        "1 entry left untranslated: a reviewer rejected this translation"
    ]
