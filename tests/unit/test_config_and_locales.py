"""Settings from pipeline.toml / pyproject.toml, and locale-code mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import load_settings
from pipeline.errors import ConfigError
from pipeline.locales import locale_from_path, service_source, service_target


def test_settings_from_pipeline_toml(tmp_path, monkeypatch):
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    (tmp_path / "pipeline.toml").write_text('source_lang = "en"\ncatalogs = ["po/*.po"]\n'
                                            '[service]\nurl = "embedded"\nconcurrency = 2\n'
                                            '[translate]\ncontext = "msgctxt"\nlocale_map = { pt = "PT-BR" }\n'
                                            '[cache]\ndir = ""\n')
    s = load_settings(None, cwd=tmp_path)
    assert s.root == tmp_path and s.catalogs == ("po/*.po",) and s.service.embedded
    assert s.service.concurrency == 2 and s.context == "msgctxt" and s.locale_map == {"pt": "PT-BR"}
    assert s.cache_dir is None and s.report_dir == tmp_path / "build/pipeline-report"


def test_pyproject_tool_section_and_environment_override(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n[tool.pipeline]\nsource_lang = "de"\n')
    monkeypatch.setenv("PIPELINE_SERVICE_URL", "http://127.0.0.1:9")
    s = load_settings(None, cwd=tmp_path)
    assert s.source_lang == "de" and s.service.url == "http://127.0.0.1:9"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('sourc_lang = "en"', "unknown key 'sourc_lang'"),
        ('[service]\nurll = "x"', "unknown key service.'urll'"),
        ('catalogs = "x.po"', "catalogs has the wrong type"),
        ('[service]\nconcurrency = 0', "service.concurrency must be at least 1"),
        ('[translate]\ncontext = "some"', "translate.context must be one of"),
        ("source_lang = ", "invalid TOML"),
    ],
)
def test_config_errors_name_the_file_and_key(tmp_path, text, message):
    path = tmp_path / "pipeline.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("locale", "code"),
    [("de", "DE"), ("de_DE", "DE"), ("de_CH", "DE-CH"), ("pt_BR", "PT-BR"), ("pt", "PT-PT"), ("pt-PT", "PT-PT"),
     ("zh_Hant", "ZH-HANT"), ("zh_TW", "ZH-HANT"), ("zh_CN", "ZH-HANS"), ("zh", "ZH-HANS"), ("en", "EN-US"),
     ("en_GB", "EN-GB"), ("es_419", "ES-419"), ("es_MX", "ES-419"), ("es", "ES"), ("nb_NO", "NB"), ("ja", "JA"),
     ("sr@latin", None), ("not a locale", None)],
)
def test_service_target(locale, code):
    assert service_target(locale) == code


def test_overrides_and_sources():
    assert service_target("pt", {"pt": "pt-br"}) == "PT-BR"
    assert service_source("en_US") == "EN"


@pytest.mark.parametrize(
    ("path", "locale"),
    [("locale/de/LC_MESSAGES/django.po", "de"), ("po/pt_BR.po", "pt_BR"), ("i18n/messages.fr.po", "fr"),
     ("translations/zh_Hant/app.po", "zh_Hant"), ("messages.po", None)],
)
def test_locale_from_path(path, locale):
    assert locale_from_path(Path(path)) == locale
