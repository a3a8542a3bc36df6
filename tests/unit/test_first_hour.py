"""Issue 36 (and 39's item 14), through the whole command with the embedded service: codes checked
before anything is read, unoffered languages said once per catalog, languages told apart by variety
(Nynorsk, Serbian in Latin script, formal German, English variants), messages said once and true.

Each test runs ``pipeline`` as a user does (:func:`pipeline.cli.main`, in the project's folder).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.catalogs import read_catalog
from pipeline.cli import main

HEADER = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n'
    '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\n'
)
CONFIG = """\
source_lang = "{source}"
catalogs = ["locale/*.po"]
{top}
[service]
url = "embedded"
[translate]
{translate}
[cache]
dir = ".cache"
[report]
dir = "report"
"""


def catalog(lang: str, entries: dict[str, str]) -> str:
    return HEADER.format(lang=lang) + "".join(f'msgid "{s}"\nmsgstr "{t}"\n\n' for s, t in entries.items())


def project(
    root: Path, catalogs: dict[str, str], *, translate: str = "", top: str = "", source: str = "en"
) -> dict[Path, bytes]:
    """A project with ``catalogs`` (name -> text) in ``locale/``; returns every catalog's bytes."""
    (root / "locale").mkdir(parents=True)
    for name, text in catalogs.items():
        (root / "locale" / name).write_text(text, encoding="utf-8")
    (root / "pipeline.toml").write_text(CONFIG.format(source=source, top=top, translate=translate), encoding="utf-8")
    return files(root)


def files(root: Path) -> dict[Path, bytes]:
    return {p: p.read_bytes() for p in sorted((root / "locale").glob("*.po"))}


@pytest.fixture
def user(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user in their project's folder, with no service settings in the environment."""
    for name in ("PIPELINE_SERVICE_URL", "PIPELINE_AUTH_KEY", "PIPELINE_CACHE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    root = tmp_path / "project"
    root.mkdir()
    monkeypatch.chdir(root)
    return root


# --- Languages checked up front -------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "nearest"),
    [("xx", "xh (Xhosa)"), ("klingon", "tlh (Klingon)"), ("DEU", "did you mean 'de'?"), ("english", "en (English)")],
)
def test_a_target_lang_that_is_no_code_is_a_usage_error_naming_the_nearest(
    user: Path, capsys: pytest.CaptureFixture[str], value: str, nearest: str
) -> None:
    before = project(user, {"de.po": catalog("de", {"Open": ""})})
    with pytest.raises(SystemExit) as stop:
        main(["translate", "--target-lang", value])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert f"argument --target-lang: {value!r}" in err and nearest in err
    assert files(user) == before


def test_a_configured_target_or_source_that_is_no_code_names_the_file_and_key(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(user, {"de.po": catalog("de", {"Open": ""})}, top='target_langs = ["de", "xx"]')
    assert main(["translate"]) == 2
    err = capsys.readouterr().err
    assert "pipeline.toml: line 3: target_langs: 'xx' is not a language code; nearest: xh (Xhosa)" in err
    (user / "pipeline.toml").write_text(CONFIG.format(source="english", top="", translate=""), encoding="utf-8")
    assert main(["translate"]) == 2
    assert "pipeline.toml: line 1: source_lang: 'english' is not a language code; nearest: en (English)" in (
        capsys.readouterr().err
    )


def test_embeded_gets_a_did_you_mean(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = project(user, {"de.po": catalog("de", {"Open": ""})})
    assert main(["translate", "--service-url", "embeded"]) == 2
    assert "did you mean 'embedded'" in capsys.readouterr().err
    assert files(user) == before


# --- Languages the service does not offer: said once per catalog -----------------------------

UNOFFERED = {  # languages of real projects' catalogs the service does not offer
    "cak.po": "cak",  # Kaqchikel (Sphinx)
    "dv.po": "dv",  # Dhivehi
    "tet.po": "tet",  # Tetum
    "ug.po": "ug",  # Uyghur
}


def test_unoffered_languages_are_one_line_per_catalog_in_the_output_and_the_report(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = {f"Entry {n}": "" for n in range(30)}
    catalogs = {name: catalog(lang, entries) for name, lang in UNOFFERED.items()}
    before = project(user, {**catalogs, "de.po": catalog("de", entries)})
    assert main(["translate"]) == 1
    err = capsys.readouterr().err
    lines = [line for line in err.splitlines() if "does not offer" in line]
    assert len(lines) == len(UNOFFERED), err
    assert any("locale/ug.po: error: the service does not offer Uyghur (UG)" in line for line in lines)
    assert all('unsupported_languages = "skip"' in line for line in lines)
    md = (user / "report" / "report.md").read_text()
    assert sum("does not offer" in line for line in md.splitlines()) == len(UNOFFERED)
    assert all(files(user)[p] == before[p] for p in before if p.name != "de.po")
    # A run with nothing new says each again, once, and changes nothing.
    assert main(["translate"]) == 1
    again = capsys.readouterr()
    assert sum("does not offer" in line for line in again.err.splitlines()) == len(UNOFFERED)
    assert "0 translated, 0 from cache, 0 copied" in again.out


def test_a_run_that_sends_nothing_does_not_say_it_is_sending(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # It said "sending 30 segments (30 unique texts) in about 0 requests" before the error for each catalog.
    entries = {f"Entry {n}": "" for n in range(30)}
    project(user, {"ug.po": catalog("ug", entries)})
    assert main(["translate"]) == 1
    err = capsys.readouterr().err
    assert "sending" not in err and "does not offer Uyghur" in err
    (user / "locale" / "de.po").write_text(catalog("de", {"Open": ""}), encoding="utf-8")
    assert main(["translate"]) == 1  # the Uyghur catalog is an error again; German is sent
    err = capsys.readouterr().err
    assert "sending 1 segments (1 unique texts) in about 1 request\n" in err


@pytest.mark.parametrize(("translate", "said"), [("", "error"), ('unsupported_languages = "skip"', "skipped")])
def test_what_a_catalog_in_an_unoffered_language_gets_written_is_said(
    user: Path, capsys: pytest.CaptureFixture[str], translate: str, said: str
) -> None:
    """Entries with nothing to translate (placeholders alone) are copied into it as into any catalog: the
    catalog's one line says so, as it says what was not translated."""
    project(user, {"ug.po": catalog("ug", {"Open": "", "{count}": "", "<b>{name}</b>": ""})}, translate=translate)
    main(["translate"])
    out, err = capsys.readouterr()
    (line,) = [line for line in err.splitlines() if "does not offer" in line]
    assert line.startswith(f"locale/ug.po: {said}: the service does not offer Uyghur (UG) as a target language")
    assert "1 segments not translated; written all the same: 2 with nothing to translate, copied as they are" in line
    assert read_catalog(user / "locale" / "ug.po").units[1].targets == ("{count}",)
    assert "0 translated, 0 from cache, 2 copied" in out


def test_unsupported_languages_skip_makes_them_pass_the_run(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(user, {"cak.po": catalog("cak", {"Open": ""})}, translate='unsupported_languages = "skip"')
    assert main(["translate"]) == 0
    assert "locale/cak.po: skipped: the service does not offer cak (CAK)" in capsys.readouterr().err


def test_init_warns_about_unoffered_languages_in_its_preview(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (user / "locale").mkdir()
    (user / "locale" / "ug.po").write_text(catalog("ug", {"Open": ""}), encoding="utf-8")
    (user / "locale" / "de.po").write_text(catalog("de", {"Open": ""}), encoding="utf-8")
    assert main(["init"]) == 0
    err = capsys.readouterr().err
    assert "locale/ug.po: error: the service does not offer Uyghur (UG) as a target language" in err


# --- Languages right ------------------------------------------------------------------------


@pytest.mark.parametrize("mapping", ["", 'languages = { "locale/nn_NO.po" = "nn" }'])
def test_nynorsk_is_never_sent_as_bokmal_nor_given_bokmal(
    user: Path, capsys: pytest.CaptureFixture[str], mapping: str
) -> None:
    before = project(
        user,
        {"nn_NO.po": catalog("nn_NO", {"Open": "", "Save": ""}), "nb_NO.po": catalog("nb_NO", {"Open": "Åpne"})},
        translate=mapping,
    )
    assert main(["translate"]) == 1
    err = capsys.readouterr().err
    assert "locale/nn_NO.po: error: Norwegian Nynorsk (nn) is not offered by the translation service" in err
    assert files(user)[user / "locale/nn_NO.po"] == before[user / "locale/nn_NO.po"]


@pytest.mark.parametrize("name", ["sr@latin.po", "sr_Latn.po"])
def test_serbian_in_latin_script_never_gets_cyrillic(user: Path, capsys: pytest.CaptureFixture[str], name: str) -> None:
    lang = name.removesuffix(".po")
    before = project(user, {name: catalog(lang, {"Open": ""}), "sr.po": catalog("sr", {"Open": "Отвори"})})
    assert main(["translate"]) == 1
    assert f"Serbian in Latin script ({lang}) is not offered" in capsys.readouterr().err
    assert files(user)[user / "locale" / name] == before[user / "locale" / name]


def test_traditional_chinese_is_translated_into_traditional(user: Path) -> None:
    project(user, {"zh_Hant.po": catalog("zh_Hant", {"Open": ""})})
    assert main(["translate"]) == 0
    assert json.loads((user / "report" / "report.json").read_text())["catalogs"][0]["target_lang"] == "ZH-HANT"


def test_a_formal_catalogs_reviewed_text_is_not_reused_in_the_informal_one(user: Path) -> None:
    # WordPress writes Language: de_DE in de_DE_formal.po: its name says the form of address.
    formal = HEADER.format(lang="de_DE") + 'msgid "Open your file"\nmsgstr "Öffnen Sie Ihre Datei"\n'
    project(user, {"de_DE_formal.po": formal, "de_DE.po": catalog("de_DE", {"Open your file": ""})})
    assert main(["translate"]) == 0
    report = json.loads((user / "report" / "report.json").read_text())
    assert report["reused"] == []
    (unit,) = read_catalog(user / "locale/de_DE.po").units
    assert unit.targets[0] not in ("", "Öffnen Sie Ihre Datei")


def test_a_formal_catalog_reuses_from_its_own_variety(user: Path) -> None:
    formal = HEADER.format(lang="de_DE") + 'msgid "Open your file"\nmsgstr "Öffnen Sie Ihre Datei"\n'
    project(user, {"admin-de_DE_formal.po": formal, "de_DE_formal.po": catalog("de_DE", {"Open your file": ""})})
    assert main(["translate"]) == 0
    (unit,) = read_catalog(user / "locale/de_DE_formal.po").units
    assert unit.targets[0] == "Öffnen Sie Ihre Datei"


@pytest.mark.parametrize("lang", ["en_GB", "en_CA"])
def test_a_variant_of_the_source_language_is_left_alone_unless_asked(
    user: Path, capsys: pytest.CaptureFixture[str], lang: str
) -> None:
    before = project(user, {f"{lang}.po": catalog(lang, {"Color": ""})})
    assert main(["translate"]) == 0
    assert f"is in {lang}, a variant of the source language en: left alone" in capsys.readouterr().err
    assert files(user) == before
    (user / "pipeline.toml").write_text(
        CONFIG.format(source="en", top="", translate="source_variants = true"), encoding="utf-8"
    )
    assert main(["translate"]) == 0
    assert files(user) != before


# --- Saying each thing once, and what happens ------------------------------------------------


def test_the_embedded_service_prints_no_quota_lines(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(user, {"de.po": catalog("de", {"Open": ""})})
    assert main(["translate"]) == 0
    err = capsys.readouterr().err
    assert "quota" not in err and "usage before the run" not in err and "limit" not in err


def test_a_dry_run_says_what_it_would_write_not_that_it_did(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reviewed = catalog("de", {"Open": "Öffnen"})
    project(user, {"de.po": catalog("de", {"Open": "", "Save": ""}), "admin-de.po": reviewed})
    assert main(["translate", "--dry-run"]) == 0
    out, err = capsys.readouterr()
    assert "would write 1 reused from reviewed translations; would send 1 segments" in out
    assert "entries reused" not in err


def test_languages_and_usage_read_the_config_and_use_the_embedded_service(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(user, {"de.po": catalog("de", {"Open": ""})})
    assert main(["languages", "--include", "beta"]) == 0
    out = capsys.readouterr().out
    assert any(line.split()[:1] == ["de"] for line in out.splitlines()) and "Zulu" in out  # a beta language
    assert main(["usage", "--json"]) == 0
    assert "character_count" in json.loads(capsys.readouterr().out)


def test_a_nynorsk_catalog_sent_as_nb_by_locale_map_still_gets_no_bokmal_reused(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # locale_map is the user's explicit choice of code; the varieties stay apart all the same.
    project(
        user,
        {"nn_NO.po": catalog("nn_NO", {"Open": ""}), "nb_NO.po": catalog("nb_NO", {"Open": "Åpne"})},
        translate='locale_map = { "nn_NO" = "NB" }',
    )
    assert main(["translate"]) == 0
    report = json.loads((user / "report" / "report.json").read_text())
    assert report["reused"] == []
    (unit,) = read_catalog(user / "locale/nn_NO.po").units
    assert unit.targets[0] not in ("", "Åpne")


# --- Counted the same way, whichever list found the language unoffered ------------------------


@pytest.mark.parametrize("skip", [False, True])
def test_nynorsk_and_uyghur_are_said_and_counted_alike(
    user: Path, capsys: pytest.CaptureFixture[str], skip: bool
) -> None:
    # nn has no code on the service (refused when the catalog is read); ug has one the service leaves
    # out (refused once its list is read, after the scan on a first run).
    entries = {"Open": "", "Save": "", "Close": ""}
    translate = 'unsupported_languages = "skip"' if skip else ""
    project(user, {"nn.po": catalog("nn", entries), "ug.po": catalog("ug", entries)}, translate=translate)
    assert main(["translate"]) == (0 if skip else 1)
    captured = capsys.readouterr()
    for name in ("nn.po", "ug.po"):
        said = [line for line in captured.err.splitlines() if line.startswith(f"locale/{name}: ")]
        assert len(said) == 1 and ": 3 segments not translated" in said[0], captured.err
    counted = "0 failed, 6 skipped" if skip else "6 failed, 0 skipped"
    assert counted in captured.out
    catalogs = json.loads((user / "report" / "report.json").read_text())["catalogs"]
    key = "segments_skipped" if skip else "segments_failed"
    assert {c["path"]: c[key] for c in catalogs} == {"locale/nn.po": 3, "locale/ug.po": 3}


def test_a_catalog_done_by_hand_in_an_unoffered_language_is_not_an_error(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(user, {"nn.po": catalog("nn", {"Open": "Opna"})})
    assert main(["translate"]) == 0
    assert "not offered" not in capsys.readouterr().err


# --- Nothing to translate: said, and why ---------------------------------------------------------


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_project_with_no_catalog_says_where_it_looked(
    user: Path, capsys: pytest.CaptureFixture[str], dry_run: bool
) -> None:
    project(user, {})
    assert main(["translate", *(["--dry-run"] if dry_run else [])]) == 0
    out = capsys.readouterr().out
    assert f"found no catalog: no file in {user} matches catalogs = ['locale/*.po']\n" in out


def test_a_folder_given_with_no_catalog_is_named(user: Path, capsys: pytest.CaptureFixture[str]) -> None:
    project(user, {})
    (user / "empty").mkdir()
    assert main(["translate", "empty"]) == 0
    assert "found no catalog: no .po, .xlf or .xliff file in empty\n" in capsys.readouterr().out


@pytest.mark.parametrize("dry_run", [False, True])
def test_a_catalog_given_in_another_language_than_asked_is_not_called_missing(
    user: Path, capsys: pytest.CaptureFixture[str], dry_run: bool
) -> None:
    project(user, {"fr.po": catalog("fr", {"Hello": ""})})
    args = ["translate", "--target-lang", "ja", "locale/fr.po", *(["--dry-run"] if dry_run else [])]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "found no catalog in JA (the languages asked) among the files given\n" in out


def test_a_finished_catalog_given_in_a_language_not_offered_is_not_called_missing(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # django-allauth's sr_Latn: all translated by hand, in a script the service's SR does not write
    project(user, {"sr_Latn.po": catalog("sr_Latn", {"Hello": "Zdravo"})})
    assert main(["translate", "locale/sr_Latn.po"]) == 0
    assert "no catalog to translate among the files given\n" in capsys.readouterr().out


def test_configured_languages_that_leave_every_catalog_out_are_named(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project(user, {"fr.po": catalog("fr", {"Hello": ""})}, top='target_langs = ["de", "pt_BR"]')
    assert main(["translate"]) == 0
    out = capsys.readouterr().out
    assert (
        f"found no catalog in DE, PT-BR (the languages asked): no file in {user} matches catalogs = "
        "['locale/*.po'], or none in those languages\n"
    ) in out


def test_a_dry_run_predicts_the_exit_code_of_a_catalog_refused_for_its_charset(
    user: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    ascii_catalog = catalog("de", {"Open": ""}).replace("charset=UTF-8", "charset=ASCII")
    before = project(user, {"de.po": ascii_catalog})
    for argv in (["translate", "locale/de.po", "--dry-run"], ["translate", "locale/de.po"]):
        assert main(argv) == 1, argv
        captured = capsys.readouterr()
        assert "no catalog to translate: the file found is left out, for the reasons above" in captured.out
        assert captured.err.count("its charset ASCII cannot hold the letters of de") == 1
    # Once settled, unread: the run and a dry run still exit 1, saying the error again.
    for argv in (["translate", "--dry-run"], ["translate"]):
        assert main(argv) == 1, argv
        assert capsys.readouterr().err.count("its charset ASCII cannot hold the letters of de") == 1
    assert files(user) == before
