"""Glossary files and the resource configuration: read and checked offline, errors with file and line."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.config import Settings, load_settings
from pipeline.errors import ConfigError
from pipeline.resources.glossary_files import Dictionary, read_multilingual, read_pair_file
from pipeline.resources.targets import ResourcePlan


def write(tmp_path: Path, name: str, text: str | bytes, encoding: str = "utf-8") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.encode(encoding) if isinstance(text, str) else text)
    return path


def pair_error(tmp_path: Path, name: str, text: str | bytes) -> str:
    path = write(tmp_path, name, text)
    with pytest.raises(ConfigError) as info:
        read_pair_file(path, name, "en", "de")
    return str(info.value)


def test_tsv_and_csv_pair_files(tmp_path: Path) -> None:
    tsv = write(tmp_path, "de.tsv", "file\tDatei\n\nfolder\tOrdner\r\n")
    assert [(e.source, e.target, e.where) for e in read_pair_file(tsv, "de.tsv", "en", "de")] == [
        ("file", "Datei", "de.tsv:1"),
        ("folder", "Ordner", "de.tsv:3"),
    ]
    csv = write(
        tmp_path, "de.csv", 'file,Datei\n"a ""quoted"", term","ein Begriff"\nfolder,dossier,en,fr\nshare,teilen,EN,de\n'
    )
    assert [(e.source, e.target) for e in read_pair_file(csv, "de.csv", "en", "de")] == [
        ("file", "Datei"),
        ('a "quoted", term', "ein Begriff"),
        ("share", "teilen"),
    ]


@pytest.mark.parametrize(
    "text, message",
    [
        ("file\tDatei\nfile\tAkte\n", "de.tsv:2: duplicate source entry 'file' (first on line 1)"),
        ("file\t\n", "de.tsv:1 (target): empty phrase"),
        (" file\tDatei\n", "de.tsv:1 (source): leading or trailing whitespace"),
        ("file\u2028x\tDatei\n", "de.tsv:1 (source): control character U+2028"),
        ("fi\x07le\tDatei\n", "de.tsv:1 (source): control character U+0007"),
        ("x" * 1025 + "\tDatei\n", "de.tsv:1 (source): phrase is 1025 bytes; the limit is 1024"),
        ("ok\tgut\nfile\tDatei\textra\n", "de.tsv:2: expected 2 tab-separated fields"),
    ],
)
def test_content_rules_name_file_and_line(tmp_path: Path, text: str, message: str) -> None:
    assert message in pair_error(tmp_path, "de.tsv", text)


def test_file_level_errors(tmp_path: Path) -> None:
    assert "de.txt: a glossary file must end in .tsv or .csv" in pair_error(tmp_path, "de.txt", "a\tb\n")
    assert "de.csv:2: invalid CSV" in pair_error(tmp_path, "de.csv", 'a,b\n"open,b\n')
    assert "de.tsv:2: not valid UTF-8" in pair_error(tmp_path, "de.tsv", b"a\tb\nc\t\xff\n")
    with pytest.raises(ConfigError, match="missing.tsv: glossary file not found"):
        read_pair_file(tmp_path / "missing.tsv", "missing.tsv", "en", "de")


def test_multilingual_table(tmp_path: Path) -> None:
    path = write(tmp_path, "terms.csv", "en,de,fr_FR,pt_BR\nfile,Datei,fichier,\nfolder,Ordner,,pasta\n\n")
    table = read_multilingual(path, "terms.csv", "en")
    assert {base: [(e.source, e.target) for e in entries] for base, entries in table.items()} == {
        "de": [("file", "Datei"), ("folder", "Ordner")],
        "fr": [("file", "fichier")],
        "pt": [("folder", "pasta")],
    }


@pytest.mark.parametrize(
    "text, message",
    [
        ("de,fr\nDatei,fichier\n", "terms.csv:1: the header row must have exactly one column for the source"),
        ("en,pt_BR,pt_PT\na,b,c\n", "terms.csv:1: columns 'pt_BR' and 'pt_PT' both map to the 'pt' dictionary"),
        ("en,de\nfile,Datei,extra\n", "terms.csv:2: expected 2 fields as in the header row, found 3"),
        ("en,de\n,Datei\n", "terms.csv:2 (source): empty phrase"),
        ("en,de\nfile,Datei\nfile,Akte\n", "terms.csv:3: duplicate source entry 'file'"),
        ("", "terms.csv: empty file"),
    ],
)
def test_multilingual_errors(tmp_path: Path, text: str, message: str) -> None:
    path = write(tmp_path, "terms.csv", text)
    with pytest.raises(ConfigError) as info:
        read_multilingual(path, "terms.csv", "en")
    assert message in str(info.value)


def test_content_hash_ignores_order_and_matched_hash_follows_the_text() -> None:
    a = Dictionary("en", "de", (("file", "Datei"), ("folder", "Ordner")))
    b = Dictionary("en", "de", (("folder", "Ordner"), ("file", "Datei")))
    assert a.content_hash == b.content_hash
    assert Dictionary("en", "de", (("file", "Akte"),)).content_hash != a.content_hash
    assert a.matched_hash("Nothing to see") is None
    assert a.matched_hash("Open the FILES") == Dictionary("en", "de", (("file", "Datei"),)).matched_hash("file")
    edited = Dictionary("en", "de", (("file", "Datei"), ("folder", "Verzeichnis")))
    assert edited.matched_hash("Open the file") == a.matched_hash("Open the file")
    assert edited.matched_hash("Open the folder") != a.matched_hash("Open the folder")


@given(st.lists(st.tuples(st.text(min_size=1), st.text(min_size=1)), max_size=8, unique_by=lambda e: e[0]))
def test_hash_is_a_function_of_the_entry_set(entries: list[tuple[str, str]]) -> None:
    assert (
        Dictionary("en", "de", tuple(entries)).content_hash
        == Dictionary("en", "de", tuple(reversed(entries))).content_hash
    )


CONFIG = """
source_lang = "en"
[resources]
project = "demo"
multilingual_glossaries = ["glossary/terms.csv"]
[locale_defaults]
glossaries = ["glossary/brands.tsv"]
formality = "more"
[locales.de]
glossaries = ["glossary/de.tsv"]
model_type = "quality_optimized"
translation_memory_id = "6f1a4c9e-9d3e-4b8a-8c57-2f0d2a1b3c4d"
translation_memory_threshold = 80
[locales.de.style]
name = "German"
rules = { punctuation = { apostrophe = "use_curly_apostrophes" } }
instructions = [{ label = "Tone", prompt = "Use du." }]
[locales.ja]
formality = "less"
strict_formality = true
[locales.pl]
style = false
"""


def demo(tmp_path: Path, config: str = CONFIG) -> Settings:
    write(tmp_path, "pipeline.toml", config)
    write(tmp_path, "glossary/terms.csv", "en,de,fr\nfile,Datei,fichier\nfolder,Ordner,dossier\n")
    write(tmp_path, "glossary/brands.tsv", "Driftwood\tDriftwood\n")
    write(tmp_path, "glossary/de.tsv", "folder\tVerzeichnis\n")
    return load_settings(tmp_path / "pipeline.toml")


def test_plan_merges_defaults_locale_files_and_the_table(tmp_path: Path) -> None:
    plan = ResourcePlan(demo(tmp_path))
    de, fr, ja, pl = (plan.target(t) for t in ("DE", "FR", "JA", "PL"))
    assert de.dictionary is not None
    assert de.dictionary.entries == (("file", "Datei"), ("Driftwood", "Driftwood"), ("folder", "Verzeichnis"))
    assert fr.dictionary is not None
    assert fr.dictionary.entries == (("file", "fichier"), ("folder", "dossier"), ("Driftwood", "Driftwood"))
    assert pl.dictionary is not None
    assert pl.dictionary.entries == (("Driftwood", "Driftwood"),)
    assert (de.formality, ja.formality, fr.formality) == ("prefer_more", "less", "prefer_more")
    assert de.style is not None
    assert de.style.name == "German" and de.style.rules_dict() == {
        "punctuation": {"apostrophe": "use_curly_apostrophes"}
    }
    assert pl.style is None and fr.style is None
    opts = plan.options("EN", "DE", None)
    assert (opts.model_type, opts.translation_memory_id, opts.translation_memory_threshold) == (
        "quality_optimized",
        "6f1a4c9e-9d3e-4b8a-8c57-2f0d2a1b3c4d",
        80,
    )
    assert opts.glossary_hash == de.dictionary.content_hash and opts.style_version == de.style_hash
    assert plan.key_options(opts, "Hello").glossary_hash is None
    assert plan.key_options(opts, "Open folder").glossary_hash is not None
    assert set(plan.dictionaries(["DE"])) == {("en", "de"), ("en", "fr")}  # the table's languages too


def test_a_project_without_resources_keeps_plain_options(tmp_path: Path) -> None:
    write(tmp_path, "pipeline.toml", 'source_lang = "en"\n')
    plan = ResourcePlan(load_settings(tmp_path / "pipeline.toml"))
    opts = plan.options("EN", "DE", "ctx")
    assert (opts.glossary_hash, opts.style_version, opts.formality, opts.model_type) == (None, None, None, None)


def test_variants_of_one_language_must_share_their_glossary(tmp_path: Path) -> None:
    settings = demo(tmp_path, CONFIG + '[locales.pt_BR]\nglossaries = ["glossary/de.tsv"]\n')
    plan = ResourcePlan(settings)
    plan.target("PT-BR")
    with pytest.raises(ConfigError, match="PT-BR and PT-PT configure different glossaries"):
        plan.target("PT-PT")


@pytest.mark.parametrize(
    "extra, message",
    [
        ('[locales.de]\nformality = "polite"\n', "locales.de.formality must be one of"),
        ("[locales.de]\nstyle = true\n", "locales.de.style must be a table, or false"),
        ("[locales.de]\ncolour = 1\n", "unknown key locales.de.colour"),
        ('[locales.de]\ntranslation_memory_id = "x"\n', "translation_memory_id must be a UUID"),
        ("[locales.de]\ntranslation_memory_threshold = 101\n", "translation_memory_threshold must be within 0..100"),
        (
            '[locales.de]\nmodel_type = "latency_optimized"\n[locales.de.style]\nname = "x"\n',
            "locales.de.style cannot be combined with model_type",
        ),
        (
            '[locales.de.style]\nname = "x"\ninstructions = [{ label = "a" }]\n',
            "instructions[1] needs a label and a prompt",
        ),
        (
            '[locales.de.style]\nname = "x"\ninstructions = [{ label = "a", prompt = "' + "p" * 301 + '" }]\n',
            "prompt has 301 characters; the limit is 300",
        ),
        ('[resources]\nproject = "my project"\n', "resources.project 'my project' must be"),
        ('[locales."sr@latin"]\nformality = "more"\n', "[locales.sr@latin]: no language of the service"),
    ],
)
def test_config_errors_name_the_key(tmp_path: Path, extra: str, message: str) -> None:
    write(tmp_path, "pipeline.toml", 'source_lang = "en"\n' + extra)
    with pytest.raises(ConfigError) as info:
        ResourcePlan(load_settings(tmp_path / "pipeline.toml"))
    assert message in str(info.value) and "pipeline.toml" in str(info.value)
