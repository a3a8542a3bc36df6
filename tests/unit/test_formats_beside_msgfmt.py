"""The five grammars the property test leaves out (lisp, scheme, java, elisp, librep), beside msgfmt.

Each case is an entry, msgfmt's verdict and ours. Where they differ we are stricter, on purpose:
for Lisp and Scheme the control structures (``~[ ~{ ~< ~( ~?``) are compared as written, so a
translation that adds a ``~[`` clause is refused although gettext, which only solves the argument
constraints, accepts it (an extra clause changes which text a value selects). Every verdict of
msgfmt is checked again here where msgfmt is installed.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.placeholders.grammars import check_entry

#: (flag, msgid, msgstr, msgfmt rejects, we reject)
CASES = [
    ("lisp-format", "~A and ~A", "~A und ~A", False, False),
    ("lisp-format", "~[zero~;one~:;many~]", "~[null~;eins~:;viele~]", False, False),
    ("lisp-format", "~{~A~^, ~}", "~{~A~^; ~}", False, False),
    ("lisp-format", "~{~A~}", "~A", True, True),
    ("lisp-format", "~[a~;b~]", "~[x~;y~;z~]", False, True),  # stricter: a clause added
    ("scheme-format", "~:[no~;yes~]", "~:[nein~;ja~]", False, False),
    ("scheme-format", "~[a~;b~]", "~[x~;y~;z~]", False, True),  # stricter: a clause added
    # Guile's own directives (format-scheme.c): ~y pretty-prints an argument, ~! flushes, ~q and ~k; they
    # were "unknown", and the whole entry a false error
    ("scheme-format", "~y then ~a~!", "~y dann ~a~!", False, False),
    ("scheme-format", "~q: ~k", "~q : ~k", False, False),
    ("scheme-format", "~y then ~a", "~a", True, True),
    # Common Lisp's ~/name/ calls the function it names and reads an argument
    ("lisp-format", "~/pprint-linear/ and ~A", "~/pprint-linear/ und ~A", False, False),
    ("lisp-format", "~/pprint-linear/ and ~A", "~A", True, True),
    (
        "java-format",
        "{0,choice,0#no files|1#one file|1<{0} files}",
        "{0,choice,0#keine|1#eine|1<{0} Dateien}",
        False,
        False,
    ),
    ("java-format", "{0,choice,0#a|1#b {1}}", "{0,choice,0#a|1#b}", True, True),  # an argument of a case
    ("java-format", "{0,number} x", "{0,number,integer} x", False, False),
    ("java-format", "'{0}' {1}", "{1}", False, False),
    ("elisp-format", "%2$s %1$s", "%1$s %2$s", False, False),
    ("elisp-format", "%s and %d", "%d und %s", True, True),
    ("elisp-format", "%s %s", "%s", True, True),
    ("librep-format", "%2$s %1$s", "%1$s %2$s", False, False),
    ("librep-format", "%s", "%c", True, True),
    ("librep-format", "%1$s %s", "%s %1$s", True, True),
]


@pytest.mark.parametrize(("flag", "source", "target", "theirs", "ours"), CASES)
def test_verdict_beside_msgfmts(tmp_path: Path, flag: str, source: str, target: str, theirs: bool, ours: bool) -> None:
    assert bool(check_entry([flag], [source], [target])) == ours
    msgfmt = shutil.which("msgfmt")
    if msgfmt is None:
        return
    po = tmp_path / "x.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
        f'#, {flag}\nmsgid "{source}"\nmsgstr "{target}"\n'
    )
    done = subprocess.run([msgfmt, "-c", "-o", "/dev/null", str(po)], capture_output=True, text=True)
    assert (done.returncode != 0) == theirs, done.stderr
