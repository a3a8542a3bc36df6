"""Fetch the corpus (``python -m bench.harness.corpus [--projects a,b]``); prints each project's catalogs or error."""

from __future__ import annotations

import argparse
import json
import sys

from bench.harness.corpus import PROJECTS, FetchError, cache_dir, tree


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.harness.corpus", description=__doc__)
    parser.add_argument("--projects", help="comma-separated names (default: all)")
    args = parser.parse_args()
    wanted = set(args.projects.split(",")) if args.projects else None
    cache = cache_dir()
    found: dict[str, object] = {}
    for project in PROJECTS:
        if wanted and project.name not in wanted:
            continue
        try:
            folder = tree(project, cache, lambda message: print(f"[corpus] {message}", file=sys.stderr, flush=True))
        except FetchError as exc:
            found[project.name] = {"error": str(exc)}
            continue
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.suffix in (".po", ".xlf"))
        found[project.name] = {"kind": project.kind, "package": project.package, "catalogs": files}
    print(json.dumps({"cache": str(cache), "projects": found}, indent=1, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
