"""The format grammars are found by flag, and a grammar's module is loaded by the first text that names it."""

from __future__ import annotations

import importlib
import subprocess
import sys

from pipeline.placeholders.grammars import FORMATS, grammar
from pipeline.placeholders.grammars.spec import Grammar

_MODULES = ("compiler", "lisp", "named", "positional", "printf")
_LOADED = ("spec", *_MODULES)


def test_the_table_names_every_grammar_of_the_package_once_with_the_module_that_holds_it() -> None:
    found = {
        g.flag: name
        for name in _MODULES
        for g in vars(importlib.import_module(f"pipeline.placeholders.grammars.{name}")).values()
        if isinstance(g, Grammar)
    }
    assert found == FORMATS
    assert [grammar(flag).flag for flag in FORMATS] == list(FORMATS)


def test_a_text_without_a_format_flag_loads_no_grammar_and_a_c_format_one_loads_printf_alone() -> None:
    script = "\n".join(
        [
            "import sys",
            "from pipeline.placeholders.protect import protect",
            f"names = {_LOADED!r}",
            "loaded = lambda: sorted(m for m in names if f'pipeline.placeholders.grammars.{m}' in sys.modules)",
            "protect('Hello %s, {name}')",
            "print(loaded())",
            "print([p.text for p in protect('Hello %s', ['c-format']).placeholders], loaded())",
        ]
    )
    printed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True).stdout
    assert printed.splitlines() == ["[]", "['%s'] ['printf', 'spec']"]
