"""``pipeline init``: look at a project as it is and write a commented ``pipeline.toml`` for it.

What is recognised, each becoming catalog globs with a comment saying where they came from:

- Django: ``LOCALE_PATHS`` in a settings module, and every app's ``locale/<lang>/LC_MESSAGES/``;
- Babel: ``directory`` (and ``domain``) of ``[compile_catalog]``, ``[update_catalog]`` or
  ``[init_catalog]`` in ``setup.cfg``, or the same tables under ``[tool.*]`` in ``pyproject.toml``;
- Sphinx: ``locale_dirs`` in a ``conf.py``;
- WordPress: a ``languages/`` folder of ``.po`` files (``admin-de_DE.po``);
- Angular: the ``i18n`` section of ``angular.json`` (``sourceLocale``, ``locales``);
- Symfony: a ``translations/`` folder of XLIFF (or PO) files.

Nothing is executed: settings modules and ``conf.py`` are read as text. The files are looked for
as discovery looks for catalogs (:func:`pipeline.catalog_paths.project_files`), so a virtual
environment's Django is never taken for the project's.
"""

from __future__ import annotations

import configparser
import json
import os
import posixpath
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.catalog_paths import project_files
from pipeline.catalogs.keyed import glob_escape
from pipeline.config import CONFIG_NAME, glob_problem
from pipeline.config.reference import init_key, init_keys
from pipeline.files.untrusted import read_regular

#: A comment in angular.json (the Angular CLI reads JSON with comments); strings are matched first
#: so that a ``//`` inside one (a URL) stays. A string or comment left open runs to the end of the
#: text: each match then ends where the next may start, and the text is read once (an open one
#: that matched nothing was looked for again from every later quote or ``/*``: 17.8 s for 1 MB).
_JSON_COMMENT = re.compile(r'("(?:\\[\s\S]?|[^"\\])*(?:"|\Z))|//[^\n]*|/\*[\s\S]*?(?:\*/|\Z)')
#: The most of a project file init reads (settings modules, angular.json, setup.cfg, conf.py).
PROJECT_FILE_BYTES = 4 * 1024 * 1024
_STRING = re.compile(r"""['"]([^'"\n]+)['"]""")


@dataclass
class Found:
    """What ``init`` learnt about a project: catalog globs with why, and its source language."""

    catalogs: dict[str, str] = field(default_factory=dict)  # glob -> where it comes from
    source_lang: str | None = None
    notes: list[str] = field(default_factory=list)

    def add(self, glob: str, why: str) -> None:
        """Add ``glob`` (once; the first reason is kept), unless it leads outside the project or can name no
        file: a project file names it, and is trusted with neither; a note says what was left out."""
        normal = posixpath.normpath(glob.replace("\\", "/"))  # as discovery reads it
        problem = glob_problem(glob) or (None if _text(glob) == glob else "is not text (a lone surrogate)")
        if normal.startswith(("/", "../")) or normal == "..":
            self.notes.append(f"{why} names {_shown(glob)}, outside the project: left out")
        elif problem is not None:
            self.notes.append(f"{why} names {_shown(glob)}, which {problem}: left out")
        else:
            self.catalogs.setdefault(glob.strip("/").removeprefix("./"), why)


def inspect(root: Path) -> Found:
    """Everything :mod:`pipeline.workflows.init` recognises in the project at ``root``."""
    found = Found()
    files = project_files(
        root, ["**/*.py", "**/setup.cfg", "**/pyproject.toml", "**/angular.json", "**/*.po", "**/*.xlf", "**/*.xliff"]
    )
    _django(root, files, found)
    _babel(root, found)
    _sphinx(root, files, found)
    _angular(root, found)
    _folders(files, found)
    return found


def _django(root: Path, files: list[str], found: Found) -> None:
    for name in files:
        if not name.endswith(".py") or "settings" not in name:
            continue
        text = _read(root / name)
        block = re.search(r"^LOCALE_PATHS\s*=\s*[\[(](.*?)[\])]", text, re.MULTILINE | re.DOTALL)
        if block is None:
            continue
        base = _django_base(root, name)
        for element in block.group(1).split(","):
            strings = _STRING.findall(element)
            if strings:
                joined = "/".join(s.strip("/") for s in strings)
                folder = next((f for f in (root / joined, base / joined) if f.is_dir()), root / joined)
                where = os.path.relpath(folder, root).replace(os.sep, "/")
                found.add(f"{glob_escape(where)}/*/LC_MESSAGES/*.po", f"Django LOCALE_PATHS ({name})")
    for name in files:
        parts = name.split("/")
        if len(parts) >= 4 and parts[-2] == "LC_MESSAGES" and parts[-4] == "locale" and name.endswith(".po"):
            found.add(f"{glob_escape('/'.join(parts[:-3]))}/*/LC_MESSAGES/*.po", "a locale/ folder (Django app, Babel)")


def _django_base(root: Path, settings_module: str) -> Path:
    """BASE_DIR as Django's project template defines it: the folder above the settings package."""
    here = (root / settings_module).parent
    return here.parent if (here / "__init__.py").exists() or here.name == "settings" else here


def _babel(root: Path, found: Found) -> None:
    sections: list[tuple[str, str, dict[str, str]]] = []  # (where, command, its table)
    cfg = root / "setup.cfg"
    if cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(_read(cfg))
        except configparser.Error:
            found.notes.append("setup.cfg could not be read: its Babel sections were not looked at")
        else:
            sections += [(f"setup.cfg [{s}]", s, dict(parser[s])) for s in parser.sections()]
    pyproject = root / "pyproject.toml"
    if pyproject.is_file():
        try:
            tools = tomllib.loads(_read(pyproject)).get("tool", {})
        except (tomllib.TOMLDecodeError, RecursionError):
            tools = {}
        for tool, tables in tools.items() if isinstance(tools, dict) else ():
            if isinstance(tables, dict):
                sections += [
                    (f"pyproject.toml [tool.{tool}.{n}]", n, t) for n, t in tables.items() if isinstance(t, dict)
                ]
    for where, command, table in sections:
        if command in ("compile_catalog", "update_catalog", "init_catalog"):
            directory, domain = table.get("directory"), table.get("domain")
            if isinstance(directory, str) and directory.strip():
                domain = glob_escape(domain.strip()) if isinstance(domain, str) and domain.strip() else "*"
                found.add(f"{glob_escape(directory.strip())}/*/LC_MESSAGES/{domain}.po", f"Babel {where}")


def _sphinx(root: Path, files: list[str], found: Found) -> None:
    for name in files:
        if name != "conf.py" and not name.endswith("/conf.py"):
            continue
        text = _read(root / name)
        block = re.search(r"^locale_dirs\s*=\s*[\[(](.*?)[\])]", text, re.MULTILINE | re.DOTALL)
        if block is None:
            continue
        here = Path(name).parent
        for folder in _STRING.findall(block.group(1)):
            found.add(f"{glob_escape((here / folder).as_posix())}/**/*.po", f"Sphinx locale_dirs ({name})")


def _angular(root: Path, found: Found) -> None:
    path = root / "angular.json"
    if not path.is_file():
        return
    try:
        data = json.loads(_JSON_COMMENT.sub(r"\1", _read(path)))
    except (json.JSONDecodeError, RecursionError):
        data = None
    projects = data.get("projects") if isinstance(data, dict) else None
    if not isinstance(projects, dict):
        found.notes.append("angular.json could not be read: its i18n section was not looked at")
        return
    for name, project in projects.items():
        i18n = project.get("i18n") if isinstance(project, dict) else None
        if not isinstance(i18n, dict):
            continue
        source = i18n.get("sourceLocale")
        source = source.get("code") if isinstance(source, dict) else source
        if isinstance(source, str):
            found.source_lang = found.source_lang or source
        locales = i18n.get("locales")
        for locale, spec in locales.items() if isinstance(locales, dict) else ():
            for file in _translations(spec):
                found.add(glob_escape(file), f"Angular i18n of project {name} ({locale})")


def _translations(spec: object) -> list[str]:
    """The files an Angular ``locales`` entry names: a path, a list, or ``{"translation": ...}``."""
    if isinstance(spec, dict):
        spec = spec.get("translation")
    if isinstance(spec, str):
        return [spec]
    return [s for s in spec if isinstance(s, str)] if isinstance(spec, list) else []


def _folders(files: list[str], found: Found) -> None:
    """WordPress ``languages/`` and Symfony ``translations/`` folders, wherever they are."""
    seen: dict[str, set[str]] = {}
    for name in files:
        folder, _, file = name.rpartition("/")
        if folder.rsplit("/", 1)[-1] in ("languages", "translations") and "." in file:
            seen.setdefault(folder, set()).add(file.rsplit(".", 1)[1].lower())
    for folder, suffixes in sorted(seen.items()):
        if folder.endswith("languages"):  # WordPress keeps plugins/ and themes/ below it
            if "po" in suffixes:
                found.add(f"{glob_escape(folder)}/**/*.po", "WordPress language files")
            continue
        for suffix in sorted(suffixes & {"po", "xlf", "xliff"}):
            found.add(f"{glob_escape(folder)}/*.{suffix}", "Symfony translations")
        if (
            folder.endswith("translations")
            and found.source_lang is None
            and any(f.startswith(f"{folder}/") and re.search(r"\.en\.(xlf|xliff)$", f) for f in files)
        ):
            found.source_lang = "en"


def _read(path: Path) -> str:
    try:
        return read_regular(path, PROJECT_FILE_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _shown(text: str) -> str:
    """``text`` quoted for a comment: no control character, no line break, at most 200 characters."""
    return json.dumps(text[:200], ensure_ascii=False)[1:-1]


def _toml_string(text: str) -> str:
    """``text`` as a TOML basic string: quote, backslash and control characters escaped, the rest as is."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + _CONTROL.sub(lambda m: f"\\u{ord(m.group()):04x}", escaped) + '"'


def one_line(text: str) -> str:
    """``text`` as the rest of one line, of a comment or a terminal: no control character but tab (TOML
    allows none in a comment; an escape sequence in a project's name would drive the terminal)."""
    return _CONTROL.sub(" ", _text(text))


def _text(text: str) -> str:
    """``text`` with what UTF-8 cannot hold (a lone surrogate from a JSON escape) as ``\\udXXX``."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


_CONTROL = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")


def _language(source: str | None) -> str:
    """The base language of a source locale a project file names (``en-US``: ``en``); ``en`` for anything else."""
    base = (source or "en").replace("_", "-").split("-")[0].lower()
    return base if re.fullmatch(r"[a-z]{2,3}", base) else "en"


def render(found: Found) -> str:
    """The commented ``pipeline.toml`` for what was found: the keys ``pipeline init`` writes, each with its
    documentation (:mod:`pipeline.config.keys`), the catalog globs and source language from the project."""
    lines = [
        f"# {CONFIG_NAME}, written by `pipeline init` from what it found in this project; every key is",
        "# described in docs/configuration.md. Check the catalogs with `pipeline translate --dry-run`.",
        "",
    ]
    for section in ("", "service", "translate"):
        lines += [f"[{section}]"] if section else []
        for key in init_keys(section):
            if key.name == "catalogs":
                lines += _catalogs(found)
            else:
                lines += [
                    *init_key(key, _toml_string(_language(found.source_lang)) if key.name == "source_lang" else None),
                    "",
                ]
    return "\n".join(lines).rstrip("\n") + "\n"


def _catalogs(found: Found) -> list[str]:
    """The catalog globs found, each with where it came from; or, with none, how to name them."""
    if not found.catalogs:
        lines = [
            "# No known layout found: every .po, .xlf and .xliff git sees is a catalog. Name them here to narrow it:",
            '# catalogs = ["locale/*/LC_MESSAGES/*.po"]',
        ]
    else:
        lines = [
            "catalogs = [",
            *(f"    {_toml_string(glob)},  # {one_line(why)}" for glob, why in found.catalogs.items()),
            "]",
        ]
    return [*lines, *(f"# {one_line(note)}" for note in found.notes), ""]
