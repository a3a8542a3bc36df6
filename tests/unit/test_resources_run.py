"""``pipeline translate`` with glossaries, style lists, formality and translation memory (fake service)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pipeline.catalogs import read_catalog
from pipeline.config import Settings, load_settings
from pipeline.errors import ExitCode
from pipeline.resources.targets import ResourcePlan
from pipeline.run.orchestrate import RunOptions, run_translate
from pipeline.run.records import RunReport
from tests.resources_fake import FakeResources

HEADER = 'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n\n'
BODY = "".join(f'msgid "{text}"\nmsgstr ""\n\n' for text in ("Open file", "Delete folder", "Hello", "Settings"))
TM = "6f1a4c9e-9d3e-4b8a-8c57-2f0d2a1b3c4d"
CONFIG = f"""source_lang = "en"
catalogs = ["locale/*.po"]
[service]
url = "http://fake.invalid"
[cache]
dir = "cache"
[resources]
project = "demo"
multilingual_glossaries = ["terms.csv"]
[locale_defaults]
formality = "more"
[locales.de]
glossaries = ["de.tsv"]
translation_memory_id = "{TM}"
[locales.de.style]
name = "German"
instructions = [{{ label = "Tone", prompt = "Use du." }}]
[locales.pl.style]
name = "Polish"
"""


def project(tmp_path: Path, langs: tuple[str, ...] = ("de", "fr", "pl"), config: str = CONFIG) -> Settings:
    (tmp_path / "pipeline.toml").write_text(config, encoding="utf-8")
    (tmp_path / "de.tsv").write_text("file\tDatei\nfolder\tOrdner\n", encoding="utf-8")
    (tmp_path / "terms.csv").write_text("en,fr\nfile,fichier\n", encoding="utf-8")
    reset(tmp_path, langs)
    return load_settings(tmp_path / "pipeline.toml")


def reset(tmp_path: Path, langs: tuple[str, ...] = ("de", "fr", "pl")) -> None:
    (tmp_path / "locale").mkdir(exist_ok=True)
    for lang in langs:
        (tmp_path / "locale" / f"{lang}.po").write_text(HEADER.format(lang=lang) + BODY, encoding="utf-8")


def run(settings: Settings, fake: FakeResources) -> RunReport:
    return run_translate(settings, RunOptions(), log=lambda m: None, client_factory=fake.factory())


def translations(tmp_path: Path, lang: str) -> dict[str, str]:
    return {u.sources[0]: u.targets[0] for u in read_catalog(tmp_path / "locale" / f"{lang}.po").units}


def sent_by_target(fake: FakeResources) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    for body in fake.translations:
        out.setdefault(body["target_lang"], []).append(body)
    return out


def test_terms_and_style_reach_the_right_locales_only(tmp_path: Path) -> None:
    settings = project(tmp_path)
    fake = FakeResources(memories=[TM])
    report = run(settings, fake)
    assert report.exit_code == ExitCode.OK, report.issues
    (gid,) = fake.glossaries
    de, fr, pl = (translations(tmp_path, lang) for lang in ("de", "fr", "pl"))
    assert de["Open file"] == "[DE|style v1] Open «Datei»" and de["Delete folder"] == "[DE|style v1] Delete «Ordner»"
    assert fr["Open file"] == "[FR] Open «fichier»" and fr["Delete folder"] == "[FR] Delete folder"
    assert pl["Open file"] == "[PL] Open file"
    bodies = sent_by_target(fake)
    assert {b.get("glossary_id") for b in bodies["DE"] + bodies["FR"]} == {gid}
    assert all("glossary_id" not in b and "style_id" not in b for b in bodies["PL"])
    assert all(b["source_lang"] == "EN" for b in fake.translations)  # glossaries need it: always sent
    assert {b["formality"] for b in fake.translations} == {"prefer_more"}
    assert {b.get("translation_memory_id") for b in bodies["DE"]} == {TM}
    warnings = [(i.target_lang, i.reason) for i in report.issues if i.severity == "warning"]
    assert warnings == [("PL", "style list left out: the service has no style rules for PL")]


def test_editing_a_term_retranslates_only_the_segments_that_contain_it(tmp_path: Path) -> None:
    settings = project(tmp_path)
    fake = FakeResources(memories=[TM])
    run(settings, fake)
    (gid,) = fake.glossaries
    reset(tmp_path)
    fake.reset_log()
    (tmp_path / "de.tsv").write_text("file\tDatei\nfolder\tVerzeichnis\n", encoding="utf-8")
    report = run(settings, fake)
    assert report.exit_code == ExitCode.OK
    assert [t for b in fake.translations for t in b["text"]] == ["Delete folder"]
    assert fake.writes() == [("PUT", f"/v3/glossaries/{gid}/dictionaries"), ("PATCH", f"/v3/glossaries/{gid}")]
    assert translations(tmp_path, "de")["Delete folder"] == "[DE|style v1] Delete «Verzeichnis»"
    assert report.totals.segments_from_cache == 11 and report.totals.segments_translated == 1


def test_a_second_run_with_nothing_new_makes_no_write_call(tmp_path: Path) -> None:
    settings = project(tmp_path)
    fake = FakeResources(memories=[TM])
    run(settings, fake)
    reset(tmp_path)
    (tmp_path / "locale" / "de.po").write_text(
        HEADER.format(lang="de") + BODY + 'msgid "New file"\nmsgstr ""\n', encoding="utf-8"
    )
    fake.reset_log()
    run(settings, fake)
    assert fake.writes() == [] and [t for b in fake.translations for t in b["text"]] == ["New file"]


def test_a_fully_cached_run_asks_the_service_nothing(tmp_path: Path) -> None:
    settings = project(tmp_path, config=CONFIG.replace(f'translation_memory_id = "{TM}"\n', ""))
    fake = FakeResources()
    run(settings, fake)
    reset(tmp_path)
    fake.reset_log()
    assert run(settings, fake).exit_code == ExitCode.OK and fake.requests == []


def test_with_a_translation_memory_a_cached_run_asks_only_what_the_memory_is_now(tmp_path: Path) -> None:
    settings = project(tmp_path)
    fake = FakeResources(memories=[TM])
    run(settings, fake)
    reset(tmp_path)
    fake.reset_log()
    report = run(settings, fake)
    assert report.exit_code == ExitCode.OK and report.totals.segments_from_cache == 12
    assert ("GET", "/v3/translation_memories") in fake.requests
    assert fake.translations == [] and all(method == "GET" for method, _ in fake.requests)


def test_a_memory_changed_under_the_same_id_is_asked_again_not_served_from_the_cache(tmp_path: Path) -> None:
    settings = project(tmp_path)
    fake = FakeResources(memories=[TM])
    run(settings, fake)
    reset(tmp_path)
    fake.reset_log()
    fake.memory_edits[TM] = 1  # edited in the service's web UI: same id, new updated_time
    report = run(settings, fake)
    assert report.exit_code == ExitCode.OK, report.issues
    assert sorted({b["target_lang"] for b in fake.translations}) == ["DE"]  # only the texts the memory serves
    assert translations(tmp_path, "de")["Hello"] == "[DE|style v1|tm edit 1] Hello"
    assert report.totals.segments_from_cache == 8 and report.totals.segments_translated == 4
    reset(tmp_path)
    fake.reset_log()
    again = run(settings, fake)  # unchanged since: the new answers come from the cache
    assert again.totals.segments_from_cache == 12 and fake.translations == []
    assert translations(tmp_path, "de")["Hello"] == "[DE|style v1|tm edit 1] Hello"


def test_missing_service_features_degrade_with_warnings(tmp_path: Path) -> None:
    settings = project(tmp_path)
    fake = FakeResources(glossary_routes=False, style_routes=False)  # and no translation memory
    report = run(settings, fake)
    assert report.exit_code == ExitCode.OK
    assert all(
        "glossary_id" not in b and "style_id" not in b and "translation_memory_id" not in b for b in fake.translations
    )
    reasons = sorted((i.target_lang, i.reason.split(":")[0]) for i in report.issues if i.severity == "warning")
    assert reasons == [
        ("DE", "glossary left out"),
        ("DE", "style list left out"),
        ("DE", "translation memory left out"),
        ("FR", "glossary left out"),
        ("PL", "style list left out"),
    ]
    # what was cached is what was really asked for: with the features back, those texts go out again
    reset(tmp_path)
    full = FakeResources(memories=[TM])
    run(settings, full)
    assert sorted({b["target_lang"] for b in full.translations}) == ["DE", "FR"]
    assert translations(tmp_path, "de")["Open file"] == "[DE|style v1] Open «Datei»"


def test_formality_left_out_where_the_language_has_none(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("ja",), config=CONFIG.replace('formality = "more"', 'formality = "less"'))
    fake = FakeResources()
    report = run(settings, fake)
    assert all("formality" not in b for b in fake.translations)
    assert [i.reason for i in report.issues if i.severity == "warning"] == [
        "formality left out: JA has no formality setting on the service"
    ]


def test_an_invalid_glossary_stops_before_any_request(tmp_path: Path) -> None:
    settings = project(tmp_path)
    (tmp_path / "de.tsv").write_text("file\tDatei\nfile\tAkte\n", encoding="utf-8")
    fake = FakeResources()
    try:
        run(settings, fake)
    except Exception as exc:  # noqa: BLE001 - the type is checked below
        assert type(exc).__name__ == "ConfigError" and "de.tsv:2: duplicate source entry 'file'" in str(exc)
    else:
        raise AssertionError("no error")
    assert fake.requests == []


def test_the_sample_project_config_translates_with_its_glossary_and_style_lists(tmp_path: Path) -> None:
    """What `make translate` does, on a copy: the embedded service applies the sample glossary."""
    import shutil

    from tests.sample_project import REPO, SAMPLES

    shutil.copytree(SAMPLES, tmp_path / "sample_locales")  # its glossary folder too
    config = (REPO / "pipeline.toml").read_text(encoding="utf-8")
    (tmp_path / "pipeline.toml").write_text(config.replace('dir = ".pipeline-cache"', 'dir = ""'), encoding="utf-8")
    settings = load_settings(tmp_path / "pipeline.toml")
    plan = ResourcePlan(settings)
    assert plan.target("DE").style is not None and plan.target("FR").style is not None
    assert {("en", "de"), ("en", "fr")} <= set(plan.dictionaries(["DE", "FR"]))
    messages: list[str] = []
    report = run_translate(settings, RunOptions(), log=messages.append)
    assert report.exit_code == ExitCode.OK, report.issues
    # Irish has no glossaries on the service: translated without the brand glossary, with a warning naming it.
    warnings = [(i.target_lang, i.reason) for i in report.issues if i.severity == "warning"]
    assert warnings == [("GA", "glossary left out: the service has no glossaries for en->GA")]
    irish = read_catalog(tmp_path / "sample_locales/ga/LC_MESSAGES/messages.po").units
    assert all(u.targets[0] and u.targets[0] != u.sources[0] for u in irish if u.sources[0] == "Size")
    de = {
        u.sources[0]: u.targets[0] for u in read_catalog(tmp_path / "sample_locales/de/LC_MESSAGES/messages.po").units
    }
    fr = {
        u.sources[0]: u.targets[0] for u in read_catalog(tmp_path / "sample_locales/fr/LC_MESSAGES/messages.po").units
    }
    assert (de["Size"], de["Modified"], fr["Size"]) == ("Größe", "Geändert", "Taille")
    assert any("created style list" in m for m in messages)


def test_formality_is_sent_where_the_service_has_it_beyond_the_spec(tmp_path: Path) -> None:
    settings = project(tmp_path, langs=("zh_Hant",), config=CONFIG.replace('formality = "more"', 'formality = "less"'))
    fake = FakeResources()
    report = run(settings, fake)
    assert {b.get("formality") for b in fake.translations} == {"prefer_less"}
    assert [i for i in report.issues if i.severity == "warning"] == []
    reset(tmp_path, ("zh_Hant",))
    fake.reset_log()
    run(settings, fake)  # cached under the key of what was really sent
    assert fake.translations == []
