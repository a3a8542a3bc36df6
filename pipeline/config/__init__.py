"""One frozen settings tree, built from ``pipeline.toml`` (or ``[tool.pipeline]`` in
``pyproject.toml``), the environment and the command line, in that order of precedence (last wins).

Reference of every key (all optional)::

    source_lang = "en"                 # language of the msgids / XLIFF sources (a code: "en", "pt_BR")
    catalogs = ["locale/**/*.po"]      # globs, relative to the config file's folder (default:
                                       # every .po, .xlf and .xliff); inside a git work tree only
                                       # the files git sees (tracked, or untracked and not
                                       # ignored; a submodule's or a nested clone's as its own
                                       # git sees them); never below a hidden folder, a virtual
                                       # environment (pyvenv.cfg), node_modules or site-packages,
                                       # unless the glob names that folder before its first wildcard
    exclude = []                       # globs to leave out
    target_langs = []                  # only these target locales (empty: all found); each a
                                       # code ("de", "pt_BR", "PT-BR"), checked when read

    [service]
    url = "embedded"                   # "embedded" (in-process local service) or a base URL
                                       # (http:// or https://, checked when the file is read);
                                       # PIPELINE_SERVICE_URL overrides; the key always comes
                                       # from PIPELINE_AUTH_KEY, never from this file
    concurrency = 16                   # the most requests in flight at once: a ceiling; the run
                                       # finds how many the service takes (it grows while answers
                                       # come, backs off and pauses on 429, honours Retry-After);
                                       # at most 1024
    timeout = 30.0                     # seconds per request (more than 0)
    max_attempts = 5                   # per request, for 429 / 5xx / transport errors (1 to 100)
    reporting_tag = ""                 # sent as X-Service-Reporting-Tag when set (printable ASCII)

    [translate]
    mark_fuzzy = true                  # new translations get "#, fuzzy" (needs review)
    max_characters = 500000            # budget: a run never sends a request that would bill more
                                       # characters in total; it stops, saves, exits 3 (no limit
                                       # when absent; --max-characters overrides)
    lock_wait = 600                    # seconds a run waits for catalogs another run holds (its
                                       # locks), saying who holds them; then it gives up, exit 6
                                       # (0: never wait; --lock-wait overrides)
    context = "all"                    # what is sent as `context`: "all" (msgctxt and extracted
                                       # comments), "msgctxt", or "none" (fewest requests)
    locale_map = { "pt" = "PT-BR" }    # catalog locale -> service target code, where the
                                       # built-in mapping is not what you want
    languages = { "languages/admin-german.po" = "de" }
                                       # glob -> locale of the catalogs it matches, for files
                                       # whose header and name do not say it; wins over both
    to_utf8 = false                    # a PO catalog whose charset cannot hold its target
                                       # language's letters is converted to UTF-8 (header and
                                       # bytes) before it is translated; otherwise it is refused
                                       # before anything is sent (--to-utf8 sets it)
    reuse = true                       # an untranslated entry whose msgctxt and msgid (and
                                       # msgid_plural) have a reviewed (non-fuzzy) translation in
                                       # another catalog of the same language, or in a compendium,
                                       # gets it at no cost: written fuzzy, with a comment naming
                                       # where it came from (docs/runs.md)
    compendia = ["i18n/compendium-*.po"]
                                       # PO files of reviewed translations (msgmerge --compendium's
                                       # kind), globs relative to this file; each in the language
                                       # its Language header (or name) says; the project's own
                                       # catalogs win over them
    unsupported_languages = "fail"     # a catalog in a language the service does not offer
                                       # (Kaqchikel, Nynorsk, sr@latin): said once per catalog, as
                                       # an error ("fail": exit 1) or as skipped ("skip": exit 0)
    source_variants = false            # translate catalogs in a variant of the source language
                                       # (en_GB, en_CA from "en"); by default they are left alone:
                                       # the service bills them and, between variants of one
                                       # language, returns the text unchanged
    over_length = "review"             # a translation still over its entry's length limit
                                       # (max-length:N, XLIFF maxwidth / slr) after one retry
                                       # asking for at most N characters: written marked for
                                       # review with a note ("review"), or not written ("refuse")

    [cache]
    dir = ".pipeline-cache"            # translation cache and run state ("" disables both);
                                       # unset: the user's cache folder (see project_dir)
    url = ""                           # shared cache every machine reaches: "redis://host:6379/0"
                                       # (rediss:// for TLS, unix:///path?db=0); PIPELINE_CACHE_URL
                                       # overrides; put a password in the environment, not here
    ttl = 0                            # seconds a shared entry lives (0: until cleared)

    [report]
    dir = "build/pipeline-report"      # report.json and report.md go here;
                                       # unset: <the project's cache folder>/report

    [refresh]
    template = "locale/messages.pot"   # the POT every catalog is merged from by `pipeline refresh`
                                       # (unset: <domain>.pot next to the locale folders)

    [resources]                        # glossaries and style lists (docs/glossaries-and-style.md)
    project = "<config folder name>"   # names this project's glossary and style lists on the
                                       # service (letters, digits, . _ -)
    multilingual_glossaries = []       # CSV files: a header row of locale codes (one column
                                       # per language, the source language's among them)

    [locale_defaults]                  # for every target locale; [locales.<code>] overrides
    glossaries = []                    # TSV/CSV files "source<TAB>target" (or CSV with an
                                       # optional source_lang,target_lang pair); the defaults'
                                       # files and the locale's files add up, later ones win
    formality = "default"              # default | more | less | prefer_more | prefer_less;
                                       # "more"/"less" are sent as prefer_* unless strict
    strict_formality = false           # send more/less as is (fails for unsupported targets)
    model_type = ""                    # latency_optimized | quality_optimized |
                                       # prefer_quality_optimized (unset: the service decides)
    translation_memory_id = ""         # a UUID of the account's translation memories
    translation_memory_threshold = 75  # 0..100, minimum match percentage
    style = false                      # no style list, or a table:
    # [locales.de.style]
    # name = "Driftwood German"        # the list's name on the service (a marker is appended)
    # rules = { punctuation = { apostrophe = "use_curly_apostrophes" } }
    # instructions = [{ label = "Tone", prompt = "Address the user informally.",
    #                   source_language = "en" }]   # source_language optional

    [locales.de]                       # keys: a gettext or service code (de, pt_BR, PT-BR),
                                       # mapped like catalog locales; same keys as above
"""

from __future__ import annotations

import hashlib
import os
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pipeline.config.checks import (
    CACHE_URL_SCHEMES,
    CONTEXT_POLICIES,
    EMBEDDED,
    ENV_AUTH_KEY,
    OVER_LENGTH,
    SECTIONS,
    TOP,
    UNSUPPORTED,
    check_cache_url,
    check_service_url,
    check_types,
    check_values,
    glob_problem,
    kind,
)
from pipeline.errors import ConfigError
from pipeline.resources.settings import ResourceSettings, parse_resources

__all__ = [
    "CACHE_URL_SCHEMES",
    "CONFIG_NAME",
    "CONTEXT_POLICIES",
    "EMBEDDED",
    "ENV_AUTH_KEY",
    "ENV_CACHE_URL",
    "ENV_SERVICE_URL",
    "OVER_LENGTH",
    "REPORT_SUBDIR",
    "UNSUPPORTED",
    "ServiceSettings",
    "Settings",
    "check_cache_url",
    "check_service_url",
    "find_config",
    "glob_problem",
    "load_settings",
    "project_dir",
    "user_cache_home",
]

CONFIG_NAME = "pipeline.toml"
ENV_SERVICE_URL = "PIPELINE_SERVICE_URL"
ENV_CACHE_URL = "PIPELINE_CACHE_URL"
DEFAULT_CATALOGS = ("**/*.po", "**/*.xlf", "**/*.xliff")
REPORT_SUBDIR = "report"  # of the project's cache folder, where the report goes unless configured


@dataclass(frozen=True)
class ServiceSettings:
    """How to reach the translation service."""

    url: str | None = None
    concurrency: int = 16  # a ceiling: pipeline.run.send.concurrency finds the service's own limit below it
    timeout: float = 30.0
    max_attempts: int = 5
    reporting_tag: str | None = None

    def __post_init__(self) -> None:
        # Every way in (file, environment, command line, library) ends here; those three name themselves first.
        if self.url:
            check_service_url(self.url, "the service URL")

    @property
    def embedded(self) -> bool:
        """Whether the in-process local service is used."""
        return self.url == EMBEDDED


@dataclass(frozen=True)
class Settings:
    """Everything a run needs to know, resolved to absolute paths."""

    root: Path
    config_path: Path | None = None
    source_lang: str = "en"
    catalogs: tuple[str, ...] = DEFAULT_CATALOGS
    exclude: tuple[str, ...] = ()
    target_langs: tuple[str, ...] = ()
    service: ServiceSettings = field(default_factory=ServiceSettings)
    mark_fuzzy: bool = True
    max_characters: int | None = None  # billed characters one run may spend (None: no limit)
    lock_wait: float = 600.0  # seconds a run waits for catalogs another run has locked, then gives up
    context: str = "all"
    locale_map: Mapping[str, str] = field(default_factory=dict)
    languages: tuple[tuple[str, str], ...] = ()  # [translate] languages: (glob, locale), in the file's order
    to_utf8: bool = False
    reuse: bool = True  # reviewed translations of the same entries elsewhere are written before any is paid for
    compendia: tuple[str, ...] = ()  # globs of compendium PO files, relative to root
    over_length: str = "review"  # a translation still over its length limit: "review" or "refuse"
    unsupported_languages: str = "fail"  # a catalog in a language the service does not offer: "fail" or "skip"
    source_variants: bool = False  # translate catalogs in a variant of the source language (en_GB from en)
    cache_dir: Path | None = None
    cache_url: str | None = field(default=None, repr=False)  # may carry a password: never printed
    cache_ttl: int | None = None  # seconds a shared cache entry lives (None: until cleared)
    report_dir: Path | None = None
    refresh_template: Path | None = None  # [refresh] template
    resources: ResourceSettings = field(default_factory=ResourceSettings)
    # Read and write catalogs reached through links that leave the project (--follow-symlinks-outside).
    follow_symlinks_outside: bool = False


def user_cache_home() -> Path:
    """The user's cache folder, where the platform keeps caches (platformdirs).

    ``$XDG_CACHE_HOME`` (a relative value is ignored, as the XDG spec says) or ``~/.cache`` on
    Linux, ``~/Library/Caches`` on macOS, ``%LOCALAPPDATA%`` on Windows.
    """
    import platformdirs

    return platformdirs.user_cache_path()


def project_dir(root: Path) -> Path:
    """Where the cache, run state and report of the project at ``root`` live unless configured.

    Outside the work tree, so that a run (the pre-commit hook above all) changes nothing there but
    the catalogs: ``<user cache folder>/pipeline/<folder name>-<hash of the absolute root>``. The
    name makes the folder easy to find; the hash keeps two checkouts of one project apart.
    """
    digest = hashlib.sha256(str(root).encode("utf-8", "surrogateescape")).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", root.name)[:40].strip("._") or "project"
    return user_cache_home() / "pipeline" / f"{name}-{digest}"


def find_config(start: Path) -> Path | None:
    """``pipeline.toml`` in ``start``, else a ``pyproject.toml`` there with ``[tool.pipeline]``."""
    candidate = start / CONFIG_NAME
    if candidate.is_file():
        return candidate
    pyproject = start / "pyproject.toml"
    if pyproject.is_file() and _tool_table(pyproject, _read_toml(pyproject)) is not None:
        return pyproject
    return None


def _tool_table(path: Path, data: dict[str, Any]) -> dict[str, Any] | None:
    """``[tool.pipeline]`` of a ``pyproject.toml`` (None when absent)."""
    tools = data.get("tool", {})
    if not isinstance(tools, dict):
        raise ConfigError(f"{path}: tool must be a table ([tool.pipeline]), not {kind(tools)}")
    table = tools.get("pipeline")
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: tool.pipeline must be a table ([tool.pipeline]), not {kind(table)}")
    return table


#: A configuration file is a few kilobytes; a larger one (a link to /dev/zero) is not read.
CONFIG_BYTES = 4 * 1024 * 1024


def _read_toml(path: Path) -> dict:
    from pipeline.untrusted import read_regular

    try:
        data = read_regular(path, CONFIG_BYTES)
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ConfigError(
            f"{path}: line {line}: not UTF-8 (byte 0x{data[exc.start]:02x}); TOML files are UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: arrays or tables nested too deeply") from None


def load_settings(config_path: Path | None, cwd: Path | None = None) -> Settings:
    """Settings from a config file (or defaults rooted at ``cwd``), then the environment."""
    cwd = (cwd or Path.cwd()).resolve()
    if config_path is None:
        config_path = find_config(cwd)
    if config_path is None:
        default = project_dir(cwd)
        settings = Settings(root=cwd, cache_dir=default, report_dir=default / REPORT_SUBDIR)
    else:
        config_path = config_path.resolve()
        data = _read_toml(config_path)
        if config_path.name == "pyproject.toml":
            data = _tool_table(config_path, data) or {}
        settings = _from_table(config_path, data)
    env_url = os.environ.get(ENV_SERVICE_URL)
    if env_url:
        settings = replace(settings, service=replace(settings.service, url=check_service_url(env_url, ENV_SERVICE_URL)))
    env_cache_url = os.environ.get(ENV_CACHE_URL)
    if env_cache_url:
        settings = replace(settings, cache_url=check_cache_url(env_cache_url, ENV_CACHE_URL))
    return settings


def _from_table(path: Path, data: dict[str, Any]) -> Settings:
    check_types(path, "", data, TOP)
    for name, schema in SECTIONS.items():
        check_types(path, f"{name}.", data.get(name, {}), schema)
    check_values(path, data)
    root = path.parent
    svc, tr, cache = data.get("service", {}), data.get("translate", {}), data.get("cache", {})
    cache_dir = cache.get("dir")
    report_dir = data.get("report", {}).get("dir")
    return Settings(
        root=root,
        config_path=path,
        source_lang=data.get("source_lang", "en"),
        catalogs=tuple(data.get("catalogs", DEFAULT_CATALOGS)),
        exclude=tuple(data.get("exclude", [])),
        target_langs=tuple(data.get("target_langs", [])),
        service=ServiceSettings(
            url=check_service_url(svc["url"], f"{path}: service.url") if svc.get("url") else None,
            concurrency=svc.get("concurrency", ServiceSettings.concurrency),
            timeout=float(svc.get("timeout", 30.0)),
            max_attempts=svc.get("max_attempts", 5),
            reporting_tag=svc.get("reporting_tag") or None,
        ),
        mark_fuzzy=tr.get("mark_fuzzy", True),
        max_characters=tr.get("max_characters"),
        lock_wait=float(tr.get("lock_wait", Settings.lock_wait)),
        context=tr.get("context", "all"),
        locale_map={str(k): str(v) for k, v in tr.get("locale_map", {}).items()},
        languages=_languages(path, tr.get("languages", {})),
        to_utf8=tr.get("to_utf8", False),
        reuse=tr.get("reuse", True),
        compendia=tuple(tr.get("compendia", [])),
        over_length=tr.get("over_length", "review"),
        unsupported_languages=tr.get("unsupported_languages", "fail"),
        source_variants=tr.get("source_variants", False),
        # Under the user's cache folder (platformdirs) only where the configuration names no folder.
        cache_dir=project_dir(root) if cache_dir is None else (root / cache_dir) if cache_dir else None,
        cache_url=check_cache_url(cache["url"], f"{path}: cache.url") if cache.get("url") else None,
        cache_ttl=cache.get("ttl") or None,
        report_dir=project_dir(root) / REPORT_SUBDIR if report_dir is None else root / report_dir,
        refresh_template=(root / data["refresh"]["template"]) if data.get("refresh", {}).get("template") else None,
        resources=parse_resources(path, data),
    )


def _languages(path: Path, table: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    """``[translate] languages``: glob -> locale, each locale one a catalog can be in."""
    from pipeline.locales import check_code

    for pattern, locale in table.items():
        problem = check_code(locale) if isinstance(locale, str) else 'must be a locale code like "de" or "pt_BR"'
        if problem:
            raise ConfigError(f"{path}: translate.languages[{pattern!r}]: {problem}")
    return tuple((str(pattern), str(locale)) for pattern, locale in table.items())
