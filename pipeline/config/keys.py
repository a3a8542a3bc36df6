"""Every key of ``pipeline.toml``, declared once: section, name, type, default, documentation, checks.

Everything else is made from :data:`KEYS`: the types a file's values must have and the checks they
must pass (:mod:`pipeline.config.checks`), how a value becomes a field of
:class:`~pipeline.config.Settings` (:mod:`pipeline.config`; the settings' defaults are the
keys'), the reference in ``docs/configuration.md`` and the commented ``pipeline.toml`` that
``pipeline init`` writes (:mod:`pipeline.config.reference`; a test keeps the document equal to
what the table renders). A new key is one row here.

The glossary and style tables (``[resources]``, ``[locale_defaults]``, ``[locales.<code>]`` and
their ``style``) are declared here too; what their values become is :mod:`pipeline.config.resources`'.
"""

from collections.abc import Callable
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

from pipeline.config import checks

__all__ = ["KEYS", "SECTIONS", "Key", "Section", "default", "types"]

#: What a missing key of the file means for :class:`~pipeline.config.Settings`, when it is no constant.
Unset = Literal["project cache folder", "project report folder", "config folder name", ""]


class Key(NamedTuple):
    """One key of the configuration file."""

    section: str  # "" at the top level; "locale" stands for [locale_defaults] and every [locales.<code>]
    name: str
    type: object  # what the TOML value must be: str, int, bool, (int, float), list[str], list, dict, (dict, bool)
    default: Any  # what a missing key means (None and ``unset``: worked out when the file is read)
    example: str  # the value the reference shows, as TOML
    doc: str  # the reference's text, one paragraph
    checks: tuple[Callable[[Any], str | None], ...] = ()  # each: None, or what follows the key in the error
    field: str = ""  # the Settings field it sets (``service.url``: ServiceSettings.url); "" for the resources'
    read: Literal["value", "float", "or_none", "path", "under_root", "mapping", "pairs"] = "value"
    unset: Unset = ""
    init: Literal["set", "comment", ""] = ""  # in ``pipeline init``'s file: written, commented out, left out

    @property
    def path(self) -> str:
        """The key as errors and the reference name it: ``service.url``, ``catalogs``."""
        return f"{self.section}.{self.name}" if self.section else self.name


class Section(NamedTuple):
    """A table of the file: its name and what the reference says of it."""

    name: str
    doc: str = ""


SECTIONS = (
    Section(""),
    Section("service"),
    Section("translate"),
    Section("cache"),
    Section("report"),
    Section("refresh"),
    Section("resources", "glossaries and style lists (docs/glossaries-and-style.md)"),
    Section("locale_defaults", "for every target locale; [locales.<code>] overrides"),
    Section("locales", "[locales.<code>]: a gettext or service code (de, pt_BR, PT-BR); the keys of [locale_defaults]"),
    Section("style", "[locales.<code>.style] (or [locale_defaults.style]): a style rule list"),
    Section("instruction", "each of a style list's instructions"),
)

_FILE_NAME = "holds a NUL character, which no file name can"

KEYS: tuple[Key, ...] = (
    Key("", "source_lang", str, "en", '"en"', 'language of the msgids / XLIFF sources (a code: "en", "pt_BR")',
        (checks.code,), "source_lang", init="set"),
    Key("", "catalogs", list[str], ("**/*.po", "**/*.xlf", "**/*.xliff"), '["locale/**/*.po"]',
        "globs, relative to the config file's folder (default: every .po, .xlf and .xliff); inside a git "
        "work tree only the files git sees (tracked, or untracked and not ignored; a submodule's or a nested "
        "clone's as its own git sees them); never below a hidden folder, a virtual environment (pyvenv.cfg), "
        "node_modules or site-packages, unless the glob names that folder before its first wildcard",
        (checks.globs,), "catalogs", init="set"),
    Key("", "exclude", list[str], (), "[]", "globs to leave out", (checks.globs,), "exclude", init="comment"),
    Key("", "target_langs", list[str], (), "[]",
        'only these target locales (empty: all found); each a code ("de", "pt_BR", "PT-BR"), checked when read',
        (checks.codes,), "target_langs"),
    Key("service", "url", str, None, '"embedded"',
        '"embedded" (in-process local service) or a base URL (http:// or https://, checked when the file is '
        "read); PIPELINE_SERVICE_URL overrides; the key always comes from PIPELINE_AUTH_KEY, never from this file",
        (), "service.url", "or_none", init="set"),
    Key("service", "concurrency", int, 16, "16",
        "the most requests in flight at once: a ceiling; the run finds how many the service takes (it grows "
        "while answers come, backs off and pauses on 429, honours Retry-After); at most 1024",
        (checks.at_least(1), checks.at_most(checks.MAX_CONCURRENCY)), "service.concurrency"),
    Key("service", "timeout", (int, float), 30.0, "30.0", "seconds per request (more than 0)",
        (checks.more_than_0_seconds,), "service.timeout", "float"),
    Key("service", "max_attempts", int, 5, "5",
        "sends of one request that end in a 5xx or transport error (1 to 100); a 429 the run waits out takes "
        "none: the run stops, saying so, once the service has answered nothing but 429 for two minutes",
        (checks.at_least(1), checks.at_most(checks.MAX_ATTEMPTS)), "service.max_attempts"),
    Key("service", "reporting_tag", str, None, '""', "sent as X-Service-Reporting-Tag when set (printable ASCII)",
        (checks.printable_ascii,), "service.reporting_tag", "or_none"),
    Key("translate", "mark_fuzzy", bool, True, "true",
        'new translations get "#, fuzzy" (needs review): a human reviews them', (), "mark_fuzzy", init="set"),
    Key("translate", "max_characters", int, None, "500000",
        "budget: a run never sends a request that would bill more characters in total; it stops, saves, "
        "exits 3 (no limit when absent; --max-characters overrides)",
        (checks.at_least(0, " must be 0 or more"),), "max_characters", init="comment"),
    Key("translate", "lock_wait", (int, float), 600.0, "600",
        "seconds a run waits for catalogs another run holds (its locks), saying who holds them; then it "
        "gives up, exit 6 (0: never wait; --lock-wait overrides)",
        (checks.seconds_or_more(0, " must be 0 or more seconds"),), "lock_wait", "float"),
    Key("translate", "context", str, "all", '"all"',
        'what is sent as `context`: "all" (msgctxt and extracted comments), "msgctxt", or "none" (fewest requests)',
        (checks.one_of(checks.CONTEXT_POLICIES),), "context"),
    Key("translate", "locale_map", dict, MappingProxyType({}), '{ "pt" = "PT-BR" }',
        "catalog locale -> service target code, where the built-in mapping is not what you want",
        (), "locale_map", "mapping"),
    Key("translate", "languages", dict, (), '{ "languages/admin-german.po" = "de" }',
        "glob -> locale of the catalogs it matches, for files whose header and name do not say it; wins over both",
        (checks.glob_keys, checks.code_values), "languages", "pairs", init="comment"),
    Key("translate", "to_utf8", bool, False, "false",
        "a PO catalog whose charset cannot hold its target language's letters is converted to UTF-8 (header "
        "and bytes) before it is translated; otherwise it is refused before anything is sent (--to-utf8 sets it)",
        (), "to_utf8", init="comment"),
    Key("translate", "reuse", bool, True, "true",
        "an untranslated entry whose msgctxt and msgid (and msgid_plural) have a reviewed (non-fuzzy) "
        "translation in another catalog of the same language, or in a compendium, gets it at no cost: written "
        "fuzzy, with a comment naming where it came from (docs/runs.md)", (), "reuse"),
    Key("translate", "compendia", list[str], (), '["i18n/compendium-*.po"]',
        "PO files of reviewed translations (msgmerge --compendium's kind), globs relative to this file; each in "
        "the language its Language header (or name) says; the project's own catalogs win over them",
        (checks.compendia,), "compendia"),
    Key("translate", "unsupported_languages", str, "fail", '"fail"',
        "a catalog in a language the service does not offer (Kaqchikel, Nynorsk, sr@latin): said once per "
        'catalog, as an error ("fail": exit 1) or as skipped ("skip": exit 0)',
        (checks.one_of(checks.UNSUPPORTED),), "unsupported_languages"),
    Key("translate", "source_variants", bool, False, "false",
        'translate catalogs in a variant of the source language (en_GB, en_CA from "en"); by default they are '
        "left alone: the service bills them and, between variants of one language, returns the text unchanged",
        (), "source_variants"),
    Key("translate", "over_length", str, "review", '"review"',
        "a translation still over its entry's length limit (max-length:N, XLIFF maxwidth / slr) after one retry "
        'asking for at most N characters: written marked for review with a note ("review"), or not written '
        '("refuse")', (checks.one_of(checks.OVER_LENGTH),), "over_length"),
    Key("cache", "dir", str, None, '".pipeline-cache"',
        'translation cache and run state ("" disables both); unset: the user\'s cache folder',
        (checks.no_nul,), "cache_dir", "path", "project cache folder"),
    Key("cache", "url", str, None, '""',
        'shared cache every machine reaches: "redis://host:6379/0" (rediss:// for TLS, unix:///path?db=0); '
        "PIPELINE_CACHE_URL overrides; put a password in the environment, not here",
        (), "cache_url", "or_none"),
    Key("cache", "ttl", int, None, "0", "seconds a shared entry lives (0: until cleared)",
        (checks.at_least(0, " must be 0 (no expiry) or more seconds"),), "cache_ttl", "or_none"),
    Key("report", "dir", str, None, '"build/pipeline-report"',
        "report.json and report.md go here; unset: <the project's cache folder>/report",
        (checks.no_nul,), "report_dir", "under_root", "project report folder"),
    Key("refresh", "template", str, None, '"locale/messages.pot"',
        "the POT every catalog is merged from by `pipeline refresh` (unset: <domain>.pot next to the locale folders)",
        (checks.no_nul,), "refresh_template", "path"),
    Key("resources", "project", str, None, '"driftwood"',
        "names this project's glossary and style lists on the service (letters, digits, . _ -); unset: the "
        "config folder's name", unset="config folder name"),
    Key("resources", "multilingual_glossaries", list, (), '["glossary.csv"]',
        "CSV files: a header row of locale codes (one column per language, the source language's among them)"),
    Key("locale", "glossaries", list, (), '["glossary/de.tsv"]',
        'TSV/CSV files "source<TAB>target" (or CSV with an optional source_lang,target_lang pair); the '
        "defaults' files and the locale's files add up, later ones win"),
    Key("locale", "formality", str, None, '"default"',
        'default | more | less | prefer_more | prefer_less; "more"/"less" are sent as prefer_* unless strict'),
    Key("locale", "strict_formality", bool, None, "false", "send more/less as is (fails for unsupported targets)"),
    Key("locale", "model_type", str, None, '""',
        "latency_optimized | quality_optimized | prefer_quality_optimized (unset: the service decides)"),
    Key("locale", "translation_memory_id", str, None, '""', "a UUID of the account's translation memories"),
    Key("locale", "translation_memory_threshold", int, None, "75", "0..100, minimum match percentage"),
    Key("locale", "style", (dict, bool), None, "false", "no style list, or a table (below)"),
    Key("style", "name", str, None, '"Driftwood German"', "the list's name on the service (a marker is appended)"),
    Key("style", "rules", dict, None, '{ punctuation = { apostrophe = "use_curly_apostrophes" } }',
        "category -> rule -> option, as the service names them"),
    Key("style", "instructions", list, None, '[{ label = "Tone", prompt = "Address the user informally." }]',
        "custom instructions: a label and a prompt each, and optionally a source_language"),
    Key("instruction", "label", str, None, '"Tone"', "names the instruction"),
    Key("instruction", "prompt", str, None, '"Address the user informally."', "what the engine is asked to do"),
    Key("instruction", "source_language", str, None, '"en"', "the language the prompt is written in (optional)"),
)  # fmt: skip

_BY_PATH = {key.path: key for key in KEYS}


def default(path: str) -> Any:
    """The default of the key ``path`` (``service.max_attempts``): what the settings hold when the file says nothing."""
    return _BY_PATH[path].default


def types(section: str) -> dict[str, object]:
    """The type of every key of ``section`` (the top level: its keys and its tables)."""
    found: dict[str, object] = {key.name: key.type for key in KEYS if key.section == section}
    if not section:
        found.update((name, dict) for name in ("service", "translate", "cache", "report", "refresh"))
        found.update((name, dict) for name in ("resources", "locale_defaults", "locales"))
    return found
