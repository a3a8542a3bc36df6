"""Settings from pipeline.toml / pyproject.toml, and locale-code mapping."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.config import load_settings, project_dir
from pipeline.errors import ConfigError
from pipeline.locales import locale_from_path, service_source, service_target


def test_settings_from_pipeline_toml(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    (tmp_path / "pipeline.toml").write_text(
        'source_lang = "en"\ncatalogs = ["po/*.po"]\n'
        '[service]\nurl = "embedded"\nconcurrency = 2\n'
        '[translate]\ncontext = "msgctxt"\nlocale_map = { pt = "PT-BR" }\n'
        '[cache]\ndir = ""\n'
    )
    s = load_settings(None, cwd=tmp_path)
    assert s.root == tmp_path and s.catalogs == ("po/*.po",) and s.service.embedded
    assert s.service.concurrency == 2 and s.context == "msgctxt" and s.locale_map == {"pt": "PT-BR"}
    assert s.cache_dir is None and s.report_dir == project_dir(tmp_path) / "report"


def test_unconfigured_folders_are_in_the_user_cache_folder_not_the_work_tree(
    tmp_path: Path, user_cache_home: Path
) -> None:
    (tmp_path / "app").mkdir()
    (tmp_path / "app" / "pipeline.toml").write_text('[service]\nurl = "embedded"\n')
    configured = load_settings(None, cwd=tmp_path / "app")
    bare = load_settings(None, cwd=tmp_path)  # no config file at all: the same rule
    for s in (configured, bare):
        assert s.cache_dir is not None and s.cache_dir.parent == user_cache_home / "pipeline"
        assert s.report_dir == s.cache_dir / "report"
        assert not s.cache_dir.is_relative_to(tmp_path)
    assert configured.cache_dir is not None
    assert configured.cache_dir.name.startswith("app-") and configured.cache_dir != bare.cache_dir
    assert load_settings(None, cwd=tmp_path / "app").cache_dir == configured.cache_dir  # stable between runs


def test_configured_folders_stay_where_the_configuration_puts_them(tmp_path: Path) -> None:
    (tmp_path / "pipeline.toml").write_text('[cache]\ndir = ".pipeline-cache"\n[report]\ndir = "build/report"\n')
    s = load_settings(None, cwd=tmp_path)
    assert s.cache_dir == tmp_path / ".pipeline-cache" and s.report_dir == tmp_path / "build/report"


def test_user_cache_home_follows_xdg_and_ignores_a_relative_value(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pipeline.config import user_cache_home

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    assert user_cache_home() == tmp_path / "c"
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_home().is_absolute() and not str(user_cache_home()).startswith("relative")


def test_pyproject_tool_section_and_environment_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
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
        ("[service]\nconcurrency = 0", "service.concurrency must be at least 1"),
        ('[translate]\ncontext = "some"', "translate.context must be one of"),
        ("source_lang = ", "invalid TOML"),
        # pathlib's glob, which finds compendia, raised ValueError for these in the middle of a run
        ('[translate]\ncompendia = ["i18n/x**.po"]', r"translate.compendia\[0\] is not a valid glob: '\*\*'"),
        ('[translate]\ncompendia = ["a", "**b/*.po"]', r"translate.compendia\[1\] is not a valid glob: '\*\*'"),
    ],
)
def test_config_errors_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "pipeline.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(path)
    assert str(path) in str(info.value)


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        # A misspelt key: its line, and the key meant.
        (
            "pipeline.toml",
            'source_lang = "en"\n\n[service]\nurl = "embedded"\nconcurency = 2\n',
            "pipeline.toml: line 5: unknown key service.'concurency'; did you mean 'concurrency'?",
        ),
        (
            "pipeline.toml",
            'source_lang = "en"\ntarget_lang = ["de"]\n',
            "pipeline.toml: line 2: unknown key 'target_lang'; did you mean 'target_langs'?",
        ),
        (
            "pipeline.toml",
            'source_lang = "en"\n[servce]\nurl = "x"\n',
            "line 2: unknown key 'servce'; did you mean 'service'?",
        ),
        (
            "pyproject.toml",
            '[project]\nname = "x"\n\n[tool.pipeline]\nsource_lang = "en"\nexclud = []\n',
            "pyproject.toml: line 6: unknown key 'exclud'; did you mean 'exclude'?",
        ),
        ("pipeline.toml", "[service]\n# the URL\nurl = 5\n", "pipeline.toml: line 3: service.url has the wrong type"),
        (
            "pipeline.toml",
            "[service]\nconcurrency = 0\n",
            "pipeline.toml: line 2: service.concurrency must be at least 1",
        ),
        ("pipeline.toml", "service.concurrency = 0\n", "pipeline.toml: line 1: service.concurrency must be at least 1"),
        ("pipeline.toml", "[locales.de]\ncolour = 1\n", "pipeline.toml: line 2: unknown key locales.de.colour"),
    ],
)
def test_config_errors_say_the_line_and_the_key_meant(tmp_path: Path, name: str, text: str, message: str) -> None:
    # tomllib gives no positions: "unknown key service.'concurency' (known: ...)" left the user to find it.
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert message in str(info.value)


def test_an_unknown_key_unlike_any_known_one_suggests_none(tmp_path: Path) -> None:
    path = tmp_path / "pipeline.toml"
    path.write_text('source_lang = "en"\nzzzzzz = 1\n')
    with pytest.raises(ConfigError) as info:
        load_settings(path)
    assert "line 2: unknown key 'zzzzzz' (known: " in str(info.value) and "did you mean" not in str(info.value)


@pytest.mark.parametrize(
    ("locale", "code"),
    [
        ("de", "DE"),
        ("de_DE", "DE"),
        ("de_CH", "DE-CH"),
        ("pt_BR", "PT-BR"),
        ("pt", "PT-PT"),
        ("pt-PT", "PT-PT"),
        ("zh_Hant", "ZH-HANT"),
        ("zh_TW", "ZH-HANT"),
        ("zh_CN", "ZH-HANS"),
        ("zh", "ZH-HANS"),
        ("en", "EN-US"),
        ("en_GB", "EN-GB"),
        ("es_419", "ES-419"),
        ("es_MX", "ES-419"),
        ("es", "ES"),
        ("nb_NO", "NB"),
        ("ja", "JA"),
        ("sr@latin", None),
        ("not a locale", None),
    ],
)
def test_service_target(locale: str, code: str | None) -> None:
    assert service_target(locale) == code


def test_overrides_and_sources() -> None:
    assert service_target("pt", {"pt": "pt-br"}) == "PT-BR"
    assert service_source("en_US") == "EN"


@pytest.mark.parametrize(
    ("path", "locale"),
    [
        ("locale/de/LC_MESSAGES/django.po", "de"),
        ("po/pt_BR.po", "pt_BR"),
        ("i18n/messages.fr.po", "fr"),
        ("translations/zh_Hant/app.po", "zh_Hant"),
        ("messages.po", None),
    ],
)
def test_locale_from_path(path: str, locale: str | None) -> None:
    assert locale_from_path(Path(path)) == locale


def test_folders_named_in_the_configuration_never_look_up_the_users_cache_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import pipeline.config

    def no_lookup() -> None:
        raise AssertionError("the user's cache folder was looked up")

    monkeypatch.setattr(pipeline.config, "user_cache_home", no_lookup)
    config = tmp_path / "pipeline.toml"
    config.write_text('[cache]\ndir = ".cache"\n[report]\ndir = "out"\n', encoding="utf-8")
    settings = load_settings(config)
    assert (settings.cache_dir, settings.report_dir) == (tmp_path / ".cache", tmp_path / "out")
    config.write_text('[cache]\ndir = ".cache"\n', encoding="utf-8")
    with pytest.raises(AssertionError, match="looked up"):
        load_settings(config)  # the report's folder is the default one: looked up


def test_a_keys_line_is_found_past_multi_line_strings_and_through_dotted_and_inline_tables() -> None:
    from pipeline.config.lines import key_line

    text = (
        'note = """\n'  # 1
        "url = 'not a key: inside the string'\n"  # 2
        '"""\n'  # 3
        "[service]  # the service\n"  # 4
        "url = 5\n"  # 5
        "[tool.pipeline]\n"  # 6
        '"source_lang" = "en"\n'  # 7
        "translate = { context = 1 }\n"  # 8
        "cache . dir = 'x'\n"  # 9
        "exclude = [\n"  # 10
        '  ["not", "a header"],\n'  # 11
        '  "[nor this]",\n'  # 12
        "]\n"  # 13
        "catalogs = ['a']\n"  # 14
    )
    assert key_line(text, ("service", "url")) == 5
    assert key_line(text, ("url",)) is None
    assert key_line(text, ("tool", "pipeline", "source_lang")) == 7
    assert key_line(text, ("tool", "pipeline", "translate", "context")) == 8  # the inline table's line
    assert key_line(text, ("tool", "pipeline", "cache", "dir")) == 9
    assert key_line(text, ("service", "timeout")) == 4  # not set: its table
    assert key_line(text, ("tool", "pipeline", "catalogs")) == 14  # after an array of arrays over four lines
