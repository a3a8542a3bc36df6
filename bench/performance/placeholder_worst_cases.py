"""Placeholder protection on texts made of one shape repeated: each pattern's worst case, timed.

``python -m bench.performance.placeholder_worst_cases [--repeats N]`` prints one JSON line per shape:
the seconds :func:`pipeline.placeholders.protect.protect` takes on the shape repeated N/4 and N times
(default 10,000), and their ratio: about 4 where the work grows with the text, about 16 where it
grows with its square. The shapes open what a pattern then looks for far ahead (a tag, comment,
quote or directive never closed), the way Ruby's ``%<n>d`` made GCC's ``%<…%>`` read every line to
its end. A shape whose smaller text takes over ``--give-up`` seconds is not timed at N.
"""

from __future__ import annotations

import argparse
import json
import time

from pipeline.placeholders.checks import check_translation
from pipeline.placeholders.protect import protect

#: (name, the piece repeated, the entry's flags).
SHAPES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("ruby named directive", "%<n>d ", ("ruby-format",)),
    ("ruby names, each its own", "", ("ruby-format",)),  # %<n0>d %<n1>d ...: made below
    ("ruby named directive, unflagged", "%<n>d ", ()),
    ("ruby %{name} unclosed", "%{n ", ("ruby-format",)),
    ("gcc %< unclosed", "%<a ", ("c-format",)),
    ("tag unclosed", "<a b ", ()),
    ("tag with quotes unclosed", "<a '\"", ()),
    ("tag quotes chained", "<a '<a '\"<a \"", ()),
    ("lone <word> metavariables", "<value> ", ()),
    ("html comment unclosed", "<!-- a ", ()),
    ("cdata unclosed", "<![CDATA[ a ", ("xliff-inline",)),
    ("processing instruction unclosed", "<? a ", ("xliff-inline",)),
    ("xliff escaped tag unclosed", "&lt;a b ", ("xliff-inline",)),
    ("code element unclosed", "<code>a ", ()),
    ("backquote unclosed", "`a ", ()),
    ("bracket markup unclosed", "[a=b ", ()),
    ("wiki link unclosed", "[[a ", ()),
    ("wiki parameter unclosed", "{{{a ", ()),
    ("template unclosed", "{{ a ", ()),
    ("template block unclosed", "{% a ", ()),
    ("brace unclosed", "{a ", ("python-brace-format",)),
    ("icu plural unclosed", "{n, plural, one {a ", ()),
    ("printf flags", "%-0+#", ("c-format",)),
    ("python named unclosed", "%(a ", ("python-format",)),
    ("percent name unclosed", "%a ", ()),
    ("dollar variable", "$a", ()),
    ("email-like run", "a.", ()),  # one "@" at the end makes the text an e-mail candidate
    ("url-like run", "http://a/", ()),
    ("path run", "/a", ()),
    ("option run", "--a-", ()),
    ("synopsis brackets", "[a ", ()),
    ("entity unclosed", "&a", ()),
    ("qt numbered", "%1", ()),
    ("at abbreviation", "@a", ()),
    # the kinds of session 11: a URL's query, quoted commands and patterns, dotted file names, Apple's
    # %#@name@, HTML elements in a text that closes one, bracket markup and wiki link ends
    ("query after a path run", "a.", ()),  # " ?x=1" at the end: the path part read from every character
    ("query fields", "&b=c", ()),  # "?a=b" before
    ("query template openers", "{{", ()),  # "?a=" before
    ("query template tags unclosed", "{% a", ()),  # "?a=" before
    ("quoted regex unclosed", "'^a", ()),
    ("quoted regex in guillemets", "« a\\. ", ()),
    ("quoted command, groups", "[a] ", ()),  # "'git -x " before
    ("quoted command, metavariables", "<a> ", ()),  # "'git -x " before
    ("quoted command unclosed", "a ", ()),  # "'git -x " before
    ("dotted file name", ".a_", ()),  # "x/a" before
    ("apple variables", "%#@a@", ()),
    ("apple variable openers", "%1$#@", ()),
    ("html element openers", "<html", ()),  # "</p>" before
    ("bracket markup without partner", "[b]x ", ()),
    ("wiki link ends", "x]] ", ()),
)
#: What goes before a shape's repeated piece, where it needs an opener once.
_BEFORE = {
    "query fields": "?a=b",
    "query template openers": "?a=",
    "query template tags unclosed": "?a=",
    "quoted command, groups": "'git -x ",
    "quoted command, metavariables": "'git -x ",
    "quoted command unclosed": "'git -x ",
    "dotted file name": "x/a",
    "html element openers": "</p>",
}


def _text(name: str, piece: str, count: int) -> str:
    if name == "ruby names, each its own":
        return " ".join(f"%<n{i}>d" for i in range(count))
    text = _BEFORE.get(name, "") + piece * count
    if name == "query after a path run":
        return text + " ?x=1"
    return text + "@b.org" if name == "email-like run" else text


def _seconds(text: str, flags: tuple[str, ...]) -> float:
    started = time.perf_counter()
    protect(text, flags)
    check_translation(text, text, flags)
    return time.perf_counter() - started


def main() -> int:
    """Time every shape; print one JSON line each."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=10_000)
    parser.add_argument("--give-up", type=float, default=5.0)
    args = parser.parse_args()
    protect("warm up %s <b>x</b> {n}", ())
    for name, piece, flags in SHAPES:
        small = _seconds(_text(name, piece, args.repeats // 4), flags)
        row: dict[str, object] = {"shape": name, "flags": list(flags), f"seconds_{args.repeats // 4}": round(small, 3)}
        if small <= args.give_up:
            large = _seconds(_text(name, piece, args.repeats), flags)
            row[f"seconds_{args.repeats}"] = round(large, 3)
            row["ratio"] = round(large / small, 1) if small else None
        print(json.dumps(row, ensure_ascii=False), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
