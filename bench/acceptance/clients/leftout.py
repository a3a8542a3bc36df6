"""The tests of the official clients' suites that ``bench/acceptance/clients/__main__.py`` leaves out, and why.

Only tests that cannot pass against any faithful local service are left out: those that compare
with the real service's machine translation or rephrasing (the local engine is a deterministic
pseudo-translation), and one that needs a file permission root ignores. Tests that need the
vendor's mock server (its ``mock-server-session-*`` headers) are skipped by the suites themselves
when no mock is configured, and are reported as skipped with the suites' reason. Names are the
suites' own: Jest's full names (describe blocks and title) for deepl-node, pytest node ids
without parameters (every parametrization is left out) for deepl-python.
"""

from __future__ import annotations

import os

REAL_MT = "compares with the real service's machine translation ({}); the local engine pseudo-translates"
REAL_WRITE = "compares with the real service's rephrasing ({}); the local Write engine only corrects"
ROOT = "expects a read-only directory to refuse a write, which root ignores (this run is root)"

NODE: dict[str, str] = {
    "general gives correct example translations across all languages": REAL_MT.format(
        "'proton' in each language's translation into English"
    ),
    "translate text should translate a single text": REAL_MT.format("'Protonenstrahl'"),
    "translate text should translate an array of texts": REAL_MT.format("'Protonenstrahl'"),
    "translate text should accept language codes in any case": REAL_MT.format("'Protonenstrahl'"),
    "translate text should translate with formality": REAL_MT.format("'Ihnen' and 'dir'"),
    "translate text should translate using specified XML tags": REAL_MT.format("'<title>Der Titel'"),
    "translate text should translate using specified HTML tags": REAL_MT.format("'Meine erste Überschrift'"),
    "translate text allows extra parameters to override standard parameters": REAL_MT.format("'faisceau de protons'"),
    "translate text should translate with empty custom instructions array": REAL_MT.format("'Protonenstrahl'"),
    "translate document should translate using file paths": REAL_MT.format("'Protonenstrahl'"),
    "translate document should translate using file streams": REAL_MT.format("'Protonenstrahl'"),
    "translate document should translate using buffer input": REAL_MT.format("'Protonenstrahl'"),
    "translate document should translate using file handles": REAL_MT.format("'Protonenstrahl'"),
    "translate document should translate using formality": REAL_MT.format("'Ihnen' and 'dir'"),
    "rephrase text should rephrase with style and tone": REAL_WRITE.format('"Tell me how you\'re doing, guys."'),
}
NODE_AS_ROOT: dict[str, str] = {
    "DocumentMinifier helperMethods exportMediaToMediaDirAndReplace "
    "should throw DocumentMinificationError on file operation error": ROOT,
}

PYTHON: dict[str, str] = {
    "tests/test_cli.py::test_text": REAL_MT.format("'Protonenstrahl' printed by the command line"),
    "tests/test_cli.py::test_text_stdin": REAL_MT.format("'Protonenstrahl' printed by the command line"),
    "tests/test_cli.py::test_text_preserve_formatting": REAL_MT.format("'Protonenstrahl' printed by the command line"),
    "tests/test_cli.py::test_document": REAL_MT.format("'Protonenstrahl' written by the command line"),
    "tests/test_general.py::test_example_translation": REAL_MT.format(
        "'proton' in each language's translation into English"
    ),
    "tests/test_general.py::test_translate_with_enums": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_document.py::test_translate_document_from_filepath": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_document.py::test_translate_document_formality": REAL_MT.format("'Ihnen' and 'dir'"),
    "tests/test_translate_document.py::test_translate_document_string": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_text.py::test_single_text": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_text.py::test_string_list": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_text.py::test_string_generator": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_text.py::test_source_lang": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_text.py::test_target_lang": REAL_MT.format("'Protonenstrahl'"),
    "tests/test_translate_text.py::test_formality": REAL_MT.format("'Ihnen' and 'dir'"),
    "tests/test_translate_text.py::test_tag_handling_xml": REAL_MT.format("'<title>Der Titel'"),
    "tests/test_translate_text.py::test_tag_handling_html": REAL_MT.format("'Meine erste Überschrift'"),
    "tests/test_translate_text.py::test_mixed_case_languages": REAL_MT.format("'proton beam' from German"),
    "tests/test_translate_text.py::test_extra_body_params": REAL_MT.format("'faisceau de protons'"),
}


def node_left_out() -> dict[str, str]:
    """deepl-node's left-out tests (full Jest names) with their reasons, for this machine's user."""
    as_root = hasattr(os, "geteuid") and os.geteuid() == 0
    return {**NODE, **(NODE_AS_ROOT if as_root else {})}


def python_left_out() -> dict[str, str]:
    """deepl-python's left-out tests (pytest node id prefixes) with their reasons."""
    return dict(PYTHON)
