"""Two versions of the PO reader on the same catalogs: every result and every refusal must be the same.

Each version runs in its own process, with its own checkout's ``pipeline`` (this file imports
nothing from bench/, so any checkout's interpreter can run it by path), and writes one JSON
line per catalog: a digest of everything the reader gives, or the refusal's reason and line.

- ``list ROOT... --out LIST``: every ``.po`` and ``.pot`` file under the roots, one per distinct content
  and suffix (a corpus holds many copies of one catalog), in a stable order.
- ``dump LIST --out DUMP``: read each file of LIST and record what was read (``--full``: the whole
  reading instead of its digest, to see where two versions part; ``--polib-every N``: polib's
  entries of every Nth file only, polib's parse being the slowest part).
- ``mutants LIST --out DIR``: for each file of LIST under 200 kB, a few copies with one line broken
  the way catalogs get broken (a line dropped, doubled, indented or cut short, a stray line, a bad
  escape, a blank line inside an entry, ...), so that refusals are compared as well as readings.
- ``compare OLD NEW``: the counts (files, same readings, same refusals, different) and the files that
  differ; exits 1 if any does.

What is compared, per catalog: the reading before it becomes a catalog (``read_po_file``: charset,
header fields, every entry with its lines and strings, the plural rule, warnings, where the header
edits go, the line starts), the catalog (every unit, what write-back keeps per unit, what polib's
entries are matched with, polib's entries themselves, or its refusal), and write-back:
the bytes of three renders (translations into a third of the live units, marked fuzzy; the same not
marked, with review notes on some; nothing, which must be the file as read). A refusal is compared by
its reason and line. Example, old reader beside new::

    python bench/acceptance/po_reader_differential.py list /work/corpus tests/data --out /tmp/po.list
    /tmp/old/.venv/bin/python bench/acceptance/po_reader_differential.py dump /tmp/po.list --out /tmp/old.jsonl
    .venv/bin/python bench/acceptance/po_reader_differential.py dump /tmp/po.list --out /tmp/new.jsonl
    python bench/acceptance/po_reader_differential.py compare /tmp/old.jsonl /tmp/new.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pipeline.catalogs.po import PoCatalog, read_po_file
from pipeline.errors import CatalogError


def catalogs(roots: list[Path]) -> Iterator[Path]:
    """Every PO file under ``roots``, one per distinct content and suffix, in path order."""
    seen: set[tuple[str, str]] = set()
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                path = Path(folder, name)
                if path.suffix.lower() not in (".po", ".pot") or not path.is_file() or path.is_symlink():
                    continue
                key = (hashlib.sha256(path.read_bytes()).hexdigest(), path.suffix.lower())
                if key not in seen:
                    seen.add(key)
                    yield path


def reading(path: Path, with_polib: bool = True) -> Any:
    """Everything the reader gives for ``path``, as plain data; a refusal as ("refused", reason, line)."""
    try:
        read = read_po_file(path)
        catalog = PoCatalog(read)
    except CatalogError as exc:
        return ["refused", exc.reason, exc.line]
    except Exception as exc:  # a traceback where the other version refuses or reads is a difference too
        return ["crashed", repr(exc)]
    plural = (read.plural.nplurals, read.plural.expression) if read.plural else None
    before: list[Any] = [read.encoding, sorted(read.metadata.items()), [_entry(e) for e in read.spans], plural]
    before += [read.is_template, list(read.warnings), read.plural_header_at, read.plural_unfilled_line]
    before.append(hashlib.sha256(bytes(read.starts)).hexdigest())
    units = [
        [u.position, u.line, u.sources, u.targets, u.nforms, u.plural, u.flags, u.context, u.notes, u.state.name]
        for u in catalog.units
    ]
    kept: list[Any] = [catalog.entry_lines(), [catalog._span(i) for i in range(len(units))], catalog.header_error]
    kept.append([catalog.polib_strings(i) for i in range(len(units))])
    return ["read", before, units, kept, _polib_entries(catalog) if with_polib else None, _renders(catalog)]


def _entry(entry: Any) -> list[Any]:
    return [list(entry[:11]), sorted(entry.msgstr_plural.items()), list(entry.msgstr_plural), *entry[12:]]


def _polib_entries(catalog: PoCatalog) -> Any:
    try:
        entries = catalog.entries
    except CatalogError as exc:
        return ["refused", exc.reason, exc.line]
    fields = ("msgctxt", "msgid", "msgid_plural", "msgstr", "obsolete", "flags", "comment", "tcomment")
    return [[getattr(e, f) for f in fields] + [sorted(e.msgstr_plural.items()), e.occurrences] for e in entries]


def _renders(catalog: PoCatalog) -> list[str]:
    live = [u for u in catalog.units if u.state.name != "OBSOLETE"]
    chosen = {u.position: tuple(f"T{u.position}.{k}" for k in range(u.nforms)) for u in live[::3]}
    review = {index: f"note {index}" for index in list(chosen)[::4]}
    renders = [catalog.render(chosen), catalog.render(chosen, mark_fuzzy=False, review=review), catalog.render({})]
    return [hashlib.sha256(data).hexdigest() for data in renders]


#: Lines put into a catalog by ``mutants``: what hand edits and broken tools leave.
STRAY = [
    b'"stray"',
    b"#~| x",
    b"#~|x",
    b'msgstr "x"',
    b"#,fuzzy",
    b"#.",
    b"#| msgid",
    b'msgid_plural "p"',
    b'msgstr[0] "z"',
    b'msgstr[1] "z"',
    b'#~ "x"',
    b'#~ msgid "x"',
    b'msgid "\\q"',
    b"msgid",
    b"garbage",
    b"\t",
    b'"a\rb"',
]


def mutants(path: Path, out: Path, count: int, seed: int) -> list[Path]:
    """``count`` copies of ``path`` with one line broken each, written under ``out``."""
    rng = random.Random(f"{seed}:{path}")
    lines = path.read_bytes().split(b"\n")
    written = []
    for n in range(count):
        broken = list(lines)
        at = rng.randrange(len(broken))
        kind = rng.randrange(9)
        if kind == 0:
            del broken[at]
        elif kind == 1:
            broken.insert(at, broken[at])
        elif kind == 2:
            broken.insert(at, b"")
        elif kind == 3:
            broken[at] = b"  " + broken[at]
        elif kind == 4:
            broken[at] = broken[at].rstrip(b'"\r')
        elif kind == 5:
            broken.insert(at, rng.choice(STRAY))
        elif kind == 6:
            broken[at] = broken[at].replace(b"\\n", rng.choice([b"\\x41", b"\\101", b"\\q", b"\\a"]), 1)
        elif kind == 7:
            broken[at] = broken[at] + rng.choice([b"\t", b" ", b"\r", b" \r"])
        else:
            broken[at : at + 2] = broken[at : at + 2][::-1]
        target = out / f"{hashlib.sha256(str(path).encode()).hexdigest()[:16]}-{n}{path.suffix}"
        target.write_bytes(b"\n".join(broken))
        written.append(target)
    return written


def main(argv: list[str]) -> int:
    """``list``, ``dump`` or ``compare``, as the module's docstring says."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=("list", "dump", "mutants", "compare"))
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--full", action="store_true", help="dump: the whole reading, not its digest")
    parser.add_argument("--polib-every", type=int, default=1, help="dump: polib's entries of every Nth file only")
    args = parser.parse_args(argv)
    if args.command == "list":
        with args.out.open("w", encoding="utf-8", errors="surrogateescape") as out:
            for path in catalogs(args.paths):
                out.write(f"{path}\n")
        return 0
    if args.command == "mutants":
        args.out.mkdir(parents=True, exist_ok=True)
        names = args.paths[0].read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        for name in names:
            if Path(name).stat().st_size < 200_000:
                mutants(Path(name), args.out, count=3, seed=37)
        return 0
    if args.command == "dump":
        names = args.paths[0].read_text(encoding="utf-8", errors="surrogateescape").splitlines()
        with args.out.open("w", encoding="utf-8", errors="surrogateescape") as out:
            for n, name in enumerate(names):
                found = reading(Path(name), with_polib=n % args.polib_every == 0)
                text = json.dumps(found, default=repr, ensure_ascii=False)
                kind = found[0]
                shown = found if kind != "read" or args.full else hashlib.sha256(text.encode()).hexdigest()
                out.write(json.dumps({"file": name, "kind": kind, "reading": shown}, ensure_ascii=False) + "\n")
        return 0
    old, new = (
        {json.loads(line)["file"]: json.loads(line) for line in p.open(encoding="utf-8", errors="surrogateescape")}
        for p in args.paths
    )
    differ = sorted(name for name in old if old[name] != new.get(name))
    counts = {
        "files": len(old),
        "same_reading": sum(1 for n in old if old[n] == new.get(n) and old[n]["kind"] == "read"),
        "same_refusal": sum(1 for n in old if old[n] == new.get(n) and old[n]["kind"] == "refused"),
        "different": len(differ),
        "missing_in_new": len(set(old) - set(new)),
    }
    print(json.dumps({"counts": counts, "different": differ[:50]}, indent=1))
    return 1 if differ or counts["missing_in_new"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
