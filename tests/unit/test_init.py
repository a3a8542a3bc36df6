"""`pipeline init`: a pipeline.toml from what a project looks like, never over an existing one."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path

import pytest

from pipeline.catalog_paths import find_catalogs
from pipeline.cli import main
from pipeline.config import load_settings
from pipeline.errors import ExitCode

LAYOUTS = Path(__file__).resolve().parent.parent / "data" / "layouts"
PO = (
    'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n"Language: {lang}\\n"\n\n'
    'msgid "Hi"\nmsgstr ""\n'
)


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


@pytest.fixture(autouse=True)
def _cache_outside(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))


def _catalogs(root: Path) -> dict[str, str]:
    return {glob: glob for glob in tomllib.loads((root / "pipeline.toml").read_text(encoding="utf-8"))["catalogs"]}


def test_a_django_project_gets_its_locale_paths_and_app_folders_not_its_virtualenvs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(
        tmp_path,
        {
            "mysite/__init__.py": "",
            "mysite/settings.py": "from pathlib import Path\nBASE_DIR = Path(__file__).resolve().parent.parent\n"
            'LOCALE_PATHS = [\n    BASE_DIR / "locale",\n]\n',
            "locale/de/LC_MESSAGES/django.po": PO.format(lang="de"),
            "polls/locale/fr/LC_MESSAGES/django.po": PO.format(lang="fr"),
            ".venv/pyvenv.cfg": "home = /usr/bin\n",
            ".venv/lib/python3.11/site-packages/django/conf/locale/de/LC_MESSAGES/django.po": PO.format(lang="de"),
            "env/pyvenv.cfg": "home = /usr/bin\n",
            "env/lib/python3.11/site-packages/django/conf/locale/de/LC_MESSAGES/django.po": PO.format(lang="de"),
        },
    )
    assert main(["init", str(tmp_path)]) == ExitCode.OK
    text = (tmp_path / "pipeline.toml").read_text(encoding="utf-8")
    assert set(_catalogs(tmp_path)) == {"locale/*/LC_MESSAGES/*.po", "polls/locale/*/LC_MESSAGES/*.po"}
    assert "# Django LOCALE_PATHS (mysite/settings.py)" in text and 'url = "embedded"' in text
    out = capsys.readouterr().out
    assert "found 2 catalog(s):" in out and "locale/de/LC_MESSAGES/django.po (DE)" in out
    assert "site-packages" not in out
    load_settings(tmp_path / "pipeline.toml")  # a valid configuration


def test_an_existing_configuration_is_kept_unless_forced(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "pipeline.toml").write_text("# mine\n", encoding="utf-8")
    assert main(["init", str(tmp_path), "--no-preview"]) == ExitCode.USAGE
    assert (tmp_path / "pipeline.toml").read_text(encoding="utf-8") == "# mine\n"
    assert "pass --force" in capsys.readouterr().err
    assert main(["init", str(tmp_path), "--no-preview", "--force"]) == ExitCode.OK
    assert "pipeline init" in (tmp_path / "pipeline.toml").read_text(encoding="utf-8")


def test_babel_and_sphinx_settings_become_catalog_globs(tmp_path: Path) -> None:
    _write(
        tmp_path,
        {
            "setup.cfg": "[compile_catalog]\ndirectory = app/translations\ndomain = messages\n",
            "docs/conf.py": "project = 'x'\nlocale_dirs = ['locale/']\n",
        },
    )
    assert main(["init", str(tmp_path), "--no-preview"]) == ExitCode.OK
    assert set(_catalogs(tmp_path)) == {"app/translations/*/LC_MESSAGES/messages.po", "docs/locale/**/*.po"}


def test_angular_wordpress_and_symfony_layouts_are_recognised(tmp_path: Path) -> None:
    for layout in ("angular", "wordpress", "symfony"):
        shutil.copytree(LAYOUTS / layout, tmp_path, dirs_exist_ok=True)
    angular = {
        "projects": {"app": {"i18n": {"sourceLocale": "en-US", "locales": {"fr": "src/locale/messages.fr.xlf"}}}}
    }
    text = json.dumps(angular, indent=2).replace('"i18n"', '// the Angular CLI reads comments\n"i18n"', 1)
    (tmp_path / "angular.json").write_text(text.replace('"app"', '"https://x.example/app"'), encoding="utf-8")
    assert main(["init", str(tmp_path), "--no-preview"]) == ExitCode.OK
    assert set(_catalogs(tmp_path)) == {"src/locale/messages.fr.xlf", "languages/**/*.po", "translations/*.xlf"}
    assert load_settings(tmp_path / "pipeline.toml").source_lang == "en"


def test_a_project_with_no_known_layout_keeps_the_default_globs(tmp_path: Path) -> None:
    assert main(["init", str(tmp_path), "--no-preview"]) == ExitCode.OK
    assert "catalogs" not in tomllib.loads((tmp_path / "pipeline.toml").read_text(encoding="utf-8"))


def test_with_no_known_layout_it_says_every_catalog_file_is_one_then_lists_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    langs = ("ja", "ru")
    # Flask-AppBuilder's layout: translations/<lang>/LC_MESSAGES/messages.po with no babel.cfg.
    _write(tmp_path, {f"app/translations/{lang}/LC_MESSAGES/messages.po": PO.format(lang=lang) for lang in langs})
    assert main(["init", str(tmp_path)]) == ExitCode.OK
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"wrote {tmp_path / 'pipeline.toml'}: " + (
        "no known layout found, so every .po, .xlf and .xliff file here is a catalog"
    )
    assert "found 2 catalog(s):" in out and "pattern" not in out


def test_when_every_catalog_is_refused_for_its_charset_the_preview_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # msginit in a C locale writes charset=ASCII, which holds no German or Russian letter.
    ascii_po = PO.replace("charset=UTF-8", "charset=ASCII")
    _write(tmp_path, {"po/de.po": ascii_po.format(lang="de"), "po/ru.po": ascii_po.format(lang="ru")})
    assert main(["init", str(tmp_path)]) == ExitCode.OK
    captured = capsys.readouterr()
    assert captured.err.count("its charset ASCII cannot hold the letters of") == 2
    assert "no catalog to translate: the 2 files found are left out, for the reasons above" in captured.out
    assert "found no catalog" not in captured.out


def test_folder_names_with_glob_characters_are_written_as_literal_globs(tmp_path: Path) -> None:
    # Next.js names folders [locale] and [slug]: written as they are, "app/[locale]/translations/*.xlf"
    # is a glob of app/l/translations, app/o/... and the run found none of the project's catalogs.
    _write(
        tmp_path,
        {
            "app/[locale]/translations/messages.fr.xlf": "<xliff/>",
            "web/a*b?/locale/de/LC_MESSAGES/django.po": PO.format(lang="de"),
            "app/l/translations/other.fr.xlf": "<xliff/>",  # what the unescaped glob would have taken
        },
    )
    assert main(["init", str(tmp_path), "--no-preview"]) == ExitCode.OK
    assert set(_catalogs(tmp_path)) == {
        "app/[[]locale]/translations/*.xlf",
        "app/l/translations/*.xlf",
        "web/a[*]b[?]/locale/*/LC_MESSAGES/*.po",
    }
    found = [p.relative_to(tmp_path).as_posix() for p in find_catalogs(load_settings(tmp_path / "pipeline.toml")).paths]
    assert sorted(found) == [
        "app/[locale]/translations/messages.fr.xlf",
        "app/l/translations/other.fr.xlf",
        "web/a*b?/locale/de/LC_MESSAGES/django.po",
    ]
