"""Published project layouts: which language a catalog is in, key-based XLIFF, legacy charsets."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from pipeline.catalogs import read_catalog
from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.errors import ConfigError, ExitCode
from pipeline.locales import locale_from_path
from pipeline.service.engine.pseudo import transliterate
from tests.run_fakes import FakeService, run

LAYOUTS = Path(__file__).resolve().parent.parent / "data" / "layouts"
EMBEDDED = '[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n[report]\ndir = "report"\n'


@pytest.mark.parametrize(
    ("path", "locale"),
    [
        ("languages/admin-de_DE.po", "de_DE"),
        ("languages/de_DE.po", "de_DE"),
        ("languages/plugin-ja.po", "ja"),
        ("languages/admin-pt-BR.po", "pt-BR"),
        ("lang/translations/fr.po", "fr"),
        ("translations/messages+intl-icu.de.xlf", "de"),
        ("translations/validators.pt_BR.xlf", "pt_BR"),
        ("src/locale/messages.fr.xlf", "fr"),
        ("po/pl.po", "pl"),
        ("locale/de/LC_MESSAGES/django.po", "de"),
    ],
)
def test_the_language_is_read_from_published_file_names(path: str, locale: str) -> None:
    assert locale_from_path(Path(path)) == locale


@pytest.mark.parametrize(
    "path", ["index.po", "admin-ui.po", "admin-ts.po", "src/locale/messages.xlf", "web/app.po", "core-api.po"]
)
def test_names_that_are_not_languages_name_none(path: str) -> None:
    assert locale_from_path(Path(path)) is None


def _copy(tmp_path: Path, layout: str, config: str = EMBEDDED) -> Path:
    root = tmp_path / layout
    shutil.copytree(LAYOUTS / layout, root)
    (root / "pipeline.toml").write_text(config, encoding="utf-8")
    return root


def _report(root: Path) -> dict[str, Any]:
    result: dict[str, Any] = json.loads((root / "report" / "report.json").read_text(encoding="utf-8"))
    return result


def test_a_language_pack_without_language_headers_is_translated(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    msgfmt_check: Callable[[Path], None],
) -> None:
    root = _copy(tmp_path, "wordpress")
    monkeypatch.chdir(root)
    assert main(["translate"]) == ExitCode.PARTIAL  # index.po names no language
    err = capsys.readouterr().err
    assert "languages/index.po: error: cannot tell the target language" in err
    assert '[translate] languages = { "languages/index.po" = "de" }' in err
    admin = root / "languages" / "admin-de_DE.po"
    assert transliterate("Dashboard", "DE") in admin.read_text(encoding="utf-8")
    msgfmt_check(admin)


def test_the_configured_language_of_a_pattern_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path, "wordpress", EMBEDDED + '[translate]\nlanguages = { "languages/index.po" = "fr" }\n')
    monkeypatch.chdir(root)
    assert main(["translate"]) == ExitCode.OK, capsys.readouterr().err
    assert transliterate("Dashboard", "FR") in (root / "languages" / "index.po").read_text(encoding="utf-8")


def test_a_configured_language_must_be_a_locale(tmp_path: Path) -> None:
    config = tmp_path / "pipeline.toml"
    config.write_text('[translate]\nlanguages = { "*.po" = "not a locale" }\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"translate.languages\['\*.po'\]: 'not a locale' is not a language code"):
        load_settings(config)


def test_keys_are_translated_from_the_source_language_catalogs_text(tmp_path: Path) -> None:
    root = _copy(tmp_path, "symfony")
    settings = load_settings(root / "pipeline.toml")
    service = FakeService()
    settings = settings._replace(service=settings.service.__class__(url="http://x.invalid"))
    report = run(settings, service)
    sent = [text for request in service.requests for text in request["text"]]
    assert not any("registration." in text for text in sent)
    assert "Create an account" in sent and "Sign up" in sent and "Save" in sent
    de = read_catalog(root / "translations" / "messages.de.xlf")
    targets = {u.sources[0]: u.targets for u in de.units}
    assert targets["registration.title"] == ("[DE] Create an account",)
    assert targets["help.intro"] == ("[DE] Read the &lt;strong&gt;guide&lt;/strong&gt; first",)  # CDATA's text
    assert targets["registration.footer"] in ((), ("",))  # no English text: left alone
    [warning] = [i for i in report.issues if "registration.footer" in i.reason]
    assert warning.severity == "warning" and "messages.en.xlf gives no text" in warning.reason
    assert any(i.catalog.endswith("messages.en.xlf") and "source language" in i.reason for i in report.issues)
    assert report.exit_code == ExitCode.OK


def test_a_key_is_a_units_resname_where_the_source_language_file_has_the_text_as_source(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Kimai: messages.en.xlf has the English text as source and the key as resname; messages.de.xlf
    # still has the key as source. Symfony reads the resname as the key; so do translate and check.
    root = _copy(tmp_path, "symfony_resname")
    settings = load_settings(root / "pipeline.toml")
    service = FakeService()
    settings = settings._replace(service=settings.service.__class__(url="http://x.invalid"))
    run(settings, service)
    sent = [text for request in service.requests for text in request["text"]]
    assert not any("registration." in text for text in sent), sent
    assert any(text.startswith("An e-mail has been sent to ") for text in sent), sent
    capsys.readouterr()
    assert main(["check", "--config", str(root / "pipeline.toml")]) == ExitCode.OK
    assert "0 error(s)" in capsys.readouterr().err


def test_a_source_xliff_without_a_target_language_is_left_as_a_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = _copy(tmp_path, "angular")
    monkeypatch.chdir(root)
    assert main(["translate"]) == ExitCode.OK
    err = capsys.readouterr().err
    assert "src/locale/messages.xlf: skipped: names no target language and holds no translation" in err
    assert "<target" not in (root / "src" / "locale" / "messages.xlf").read_text(encoding="utf-8")
    assert transliterate("Hello", "FR") in (root / "src" / "locale" / "messages.fr.xlf").read_text(encoding="utf-8")


def test_a_legacy_charset_catalog_is_filled_in_its_charset(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, msgfmt_check: Callable[[Path], None]
) -> None:
    root = _copy(tmp_path, "legacy")
    (root / "po" / "pl.po").unlink()
    shutil.copy(LAYOUTS.parent / "po" / "charset_euc_jp.po", root / "po" / "ja.po")
    shutil.copy(LAYOUTS.parent / "po" / "charset_iso8859_2.po", root / "po" / "cs.po")
    monkeypatch.chdir(root)
    assert main(["translate"]) == ExitCode.OK
    assert _report(root)["totals"]["segments_failed"] == 0
    for name, codec in (("he.po", "iso8859_8"), ("ja.po", "euc_jp"), ("cs.po", "iso8859_2")):
        path = root / "po" / name
        path.read_bytes().decode(codec)  # still in its charset, every byte of it
        msgfmt_check(path)
    assert transliterate("Open the file", "HE") in (root / "po" / "he.po").read_bytes().decode("iso8859_8")


def test_a_catalog_whose_charset_cannot_hold_the_language_is_refused_before_sending(tmp_path: Path) -> None:
    root = _copy(tmp_path, "legacy")
    settings = load_settings(root / "pipeline.toml")
    settings = settings._replace(service=settings.service.__class__(url="http://x.invalid"))
    service = FakeService(languages=("pl", "he"))
    before = (root / "po" / "pl.po").read_bytes()
    report = run(settings, service)
    assert report.exit_code == ExitCode.PARTIAL
    [refusal] = [i for i in report.issues if i.catalog == "po/pl.po"]
    assert "ISO-8859-1" in refusal.reason and "U+0105" in refusal.reason and "msgconv --to-code=UTF-8" in refusal.reason
    assert not any("Open the file" in t for r in service.requests if r["target_lang"] == "PL" for t in r["text"])
    assert (root / "po" / "pl.po").read_bytes() == before


def test_to_utf8_converts_the_catalog_when_it_is_written_and_a_dry_run_changes_nothing(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    msgfmt_check: Callable[[Path], None],
) -> None:
    root = _copy(tmp_path, "legacy")
    pl = root / "po" / "pl.po"
    before = pl.read_bytes()
    monkeypatch.chdir(root)
    assert main(["translate", "--to-utf8", "--dry-run", "po/pl.po"]) == ExitCode.OK
    assert pl.read_bytes() == before
    assert main(["translate", "--to-utf8", "po/pl.po"]) == ExitCode.OK
    assert "converted from ISO-8859-1 to UTF-8" in capsys.readouterr().err
    text = pl.read_bytes().decode("utf-8")
    assert "charset=UTF-8" in text and transliterate("Open the file", "PL") in text
    msgfmt_check(pl)


def test_keys_without_a_source_language_catalog_are_not_sent(tmp_path: Path) -> None:
    root = _copy(tmp_path, "symfony")
    (root / "translations" / "messages.en.xlf").unlink()
    settings = load_settings(root / "pipeline.toml")
    settings = settings._replace(service=settings.service.__class__(url="http://x.invalid"))
    service = FakeService()
    report = run(settings, service)
    sent = [text for request in service.requests for text in request["text"]]
    assert "Save" in sent and not any(text.startswith(("registration.", "help.")) for text in sent)
    warnings = [i.reason for i in report.issues if i.catalog == "translations/messages.de.xlf"]
    assert len(warnings) == 4 and all("there is no en catalog beside it to give its text" in w for w in warnings)


def test_a_language_header_that_names_the_language_in_words_gives_way_to_the_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # django-allauth 65.22.1's et catalog says "Language: Estonian"; Django reads the folder's `et`.
    catalog = tmp_path / "locale" / "et" / "LC_MESSAGES" / "django.po"
    catalog.parent.mkdir(parents=True)
    catalog.write_text(
        'msgid ""\nmsgstr ""\n"Language: Estonian\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
        '"Plural-Forms: nplurals=2; plural=(n != 1);\\n"\n\nmsgid "Dashboard"\nmsgstr ""\n',
        encoding="utf-8",
    )
    (tmp_path / "pipeline.toml").write_text(EMBEDDED, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["translate"]) == ExitCode.OK
    err = capsys.readouterr().err
    assert (
        "locale/et/LC_MESSAGES/django.po: warning: its Language header 'Estonian' is not a locale code: "
        "translated into 'et', the language its path names"
    ) in err
    assert transliterate("Dashboard", "ET") in catalog.read_text(encoding="utf-8")
    assert '"Language: Estonian\\n"' in catalog.read_text(encoding="utf-8")  # the header is the user's to mend
