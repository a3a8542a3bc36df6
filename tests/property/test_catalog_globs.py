"""A catalog glob's file-name part matches the names :mod:`fnmatch` (the glob pathlib reads) matches.

The oracle is the standard library's own translation, written apart from ours; globs the
configuration refuses (an empty range such as ``[z-a]``) are left out, since no run sees them.
"""

from __future__ import annotations

import fnmatch

from hypothesis import example, given, settings
from hypothesis import strategies as st

from pipeline.catalog_paths import _compile
from pipeline.config import glob_problem

NAME = st.text(alphabet="ab-!^][.", min_size=1, max_size=5)


@settings(max_examples=800, deadline=None)
@given(st.text(alphabet="ab-!^][*?.", min_size=1, max_size=7), st.lists(NAME, min_size=1, max_size=6))
@example("[!]]", ["a", "]"])  # after a "!", a "]" is in the set, as right after the "["
@example("[!]", ["[!]", "a"])  # no set: the bracket is a character
@example("[]a]", ["]", "a", "b"])
@example("[!]a-b]", ["]", "c", "a"])
def test_a_names_glob_matches_what_fnmatch_matches(glob: str, names: list[str]) -> None:
    if glob_problem(glob) is not None or glob in (".", ".."):  # refused; a folder, not a name
        return
    ours = _compile(glob, False).regex
    for name in names:
        assert bool(ours.match(name)) == fnmatch.fnmatchcase(name, glob), (glob, name)
