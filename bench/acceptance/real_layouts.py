"""Published project layouts, blanked in part and translated with the embedded service; prints JSON.

Each layout is fetched from a registry the machine reaches, into a work folder (never the repo):

- ``gnu-legacy``: the po/ folders of small GNU packages' Debian sources (hello, sed, m4, indent,
  sharutils, cpio), only their catalogs in a legacy charset (ISO-8859-2, ISO-8859-7, ISO-8859-8,
  KOI8-R, EUC-JP, EUC-KR, Big5...), every entry blanked; each must come back filled, in its charset,
  and pass ``msgfmt -c``.
- ``wordpress``: WordPress's language pack (``wp-content/languages/admin-de_DE.po``...) from Debian's
  wordpress source, a few languages blanked.
- ``django``: a Django project (django-allauth's apps from PyPI) with a virtual environment inside
  it where Django itself is installed (its ``site-packages/django/conf/locale`` must be left alone).
- ``symfony``: a Symfony app's ``translations/`` (the Validator and Security catalogs of Debian's
  Symfony source), a few languages blanked.
- ``--snapshot NAME=DIR``: any other project tree (a GitHub snapshot of symfony/demo, whose XLIFF
  sources are keys, or of an Angular app's ``src/locale``); non-source XLIFF targets are blanked.

Per layout: catalogs found, catalogs written, segments filled, catalogs refused (with the reasons),
PO files failing ``msgfmt -c``, legacy catalogs whose bytes left their charset, and files outside the
project's own that changed (the virtual environment's). Needs network (apt-get source, pip) and takes
minutes: skipped unless BENCH_REAL=1 or --run.

Usage: BENCH_REAL=1 python -m bench.acceptance.real_layouts [--work DIR] [--snapshot symfony-demo=DIR ...]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Any

from bench.harness.sources import Project, fetch_all, read_member

GNU = ("hello", "sed", "m4", "indent", "sharutils", "cpio")
WORDPRESS_LANGS = ("de_DE", "pl_PL", "he_IL", "ja", "ar", "el", "ru_RU")
SYMFONY_LANGS = ("de", "pl", "he", "ja", "ru", "cs")
DJANGO_LANGS = ("de", "pl", "he", "ja", "ru")
CONFIG = '[service]\nurl = "embedded"\n[cache]\ndir = ".pipeline-cache"\n[report]\ndir = ".pipeline-report"\n'
_CHARSET = re.compile(rb"charset=([A-Za-z0-9_-]+)")
_TARGET = re.compile(r"\s*<target[^>]*?(?:/>|>.*?</target>)", re.DOTALL)


def _run(argv: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, capture_output=True, text=True, check=False, **kwargs)


def _source(work: Path, package: str) -> list[Path]:
    """The tarballs of a Debian source package, downloaded once into work/debian."""
    return fetch_all(Project(package, "deb-src", package, "*", ()), work / "debian", lambda message: None)


def _blank_po(path: Path) -> None:
    """Every translation of ``path`` emptied (msgfilter keeps the header and the charset)."""
    out = path.with_suffix(".blank")
    _run(
        ["msgfilter", "--keep-header", "-i", str(path), "-o", str(out), "sed", "-e", "d"],
        env={**os.environ, "LC_ALL": "C"},
    )
    if out.is_file():
        out.replace(path)


def _blank_xliff(path: Path) -> None:
    path.write_text(_TARGET.sub("", path.read_text(encoding="utf-8")), encoding="utf-8")


def gnu_legacy(work: Path) -> Path:
    root = work / "gnu-legacy"
    for package in GNU:
        for tarball in _source(work, package):
            if ".orig." not in tarball.name:
                continue
            with tarfile.open(tarball) as tar:
                for member in tar.getmembers():
                    parts = Path(member.name).parts
                    if member.isfile() and len(parts) >= 2 and parts[-2] == "po" and member.name.endswith(".po"):
                        data = read_member(tar, member)
                        charset = _CHARSET.search(data)
                        if charset and not charset.group(1).lower().startswith(b"utf"):
                            target = root / package / "po" / parts[-1]
                            target.parent.mkdir(parents=True, exist_ok=True)
                            target.write_bytes(data)
                            _blank_po(target)
    return root


def wordpress(work: Path) -> Path:
    root = work / "wordpress"
    languages = root / "wp-content" / "languages"
    languages.mkdir(parents=True, exist_ok=True)
    for tarball in _source(work, "wordpress"):
        if ".debian." not in tarball.name:
            continue
        with tarfile.open(tarball) as tar:
            for member in tar.getmembers():
                name = Path(member.name).name
                if member.isfile() and member.name.startswith("debian/languages/") and name.endswith((".po", ".pot")):
                    (languages / name).write_bytes(read_member(tar, member))
    for path in languages.glob("*.po"):
        if any(path.stem.endswith(lang) for lang in WORDPRESS_LANGS):
            _blank_po(path)
        else:
            path.unlink()  # the other languages: found and settled, not worth the minutes
    return root


def django(work: Path) -> Path:
    root = work / "django"
    wheels = work / "pypi"
    wheels.mkdir(exist_ok=True)
    _run(
        [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary",
            ":all:",
            "-d",
            str(wheels),
            "django-allauth",
        ]
    )
    import zipfile

    [wheel] = sorted(wheels.glob("django_allauth-*.whl"))[-1:]
    with zipfile.ZipFile(wheel) as archive:
        for name in archive.namelist():
            if name.startswith("allauth/") and "/locale/" in name and name.endswith(".po"):
                target = root / name
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(archive.read(name))
    (root / "manage.py").write_text("# a Django project's entry point\n", encoding="utf-8")
    (root / "project").mkdir(exist_ok=True)
    (root / "project" / "settings.py").write_text('LOCALE_PATHS = [BASE_DIR / "locale"]\n', encoding="utf-8")
    for path in root.glob("allauth/**/*.po"):
        if path.parts[-3] not in DJANGO_LANGS:
            path.unlink()
        else:
            _blank_po(path)
    venv = root / ".venv"
    if not venv.exists():
        _run([sys.executable, "-m", "venv", str(venv)])
        _run([str(venv / "bin" / "pip"), "install", "--quiet", "django"])
    return root


def symfony(work: Path) -> Path:
    root = work / "symfony"
    translations = root / "translations"
    translations.mkdir(parents=True, exist_ok=True)
    for tarball in _source(work, "symfony"):
        if ".orig." not in tarball.name:
            continue
        with tarfile.open(tarball) as tar:
            for member in tar.getmembers():
                name = Path(member.name).name
                wanted = re.match(r"(validators|security)\.([a-zA-Z_]+)\.xlf$", name)
                if member.isfile() and "/Resources/translations/" in member.name and wanted:
                    if wanted.group(2) in (*SYMFONY_LANGS, "en"):
                        (translations / name).write_bytes(read_member(tar, member))
    for path in translations.glob("*.xlf"):
        if not path.name.endswith(".en.xlf"):
            _blank_xliff(path)
    return root


def snapshot(work: Path, name: str, source: Path) -> Path:
    root = work / name
    if not root.exists():
        shutil.copytree(source, root, ignore=shutil.ignore_patterns(".git"))
    for path in [*root.rglob("*.xlf"), *root.rglob("*.xliff")]:
        if not re.search(r"[.](en|en-US|en_US)[.]xl", path.name) and path.name not in ("messages.xlf",):
            _blank_xliff(path)
    return root


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        h.update(str(path).encode() + path.read_bytes())
    return h.hexdigest()


def measure(name: str, root: Path) -> dict[str, Any]:
    """Translate the layout at ``root`` with the embedded service; what was found, filled, refused."""
    (root / "pipeline.toml").write_text(CONFIG, encoding="utf-8")
    legacy = {p: _CHARSET.search(p.read_bytes()) for p in root.rglob("*.po") if ".venv" not in p.parts}
    venv = root / ".venv"
    before = _digest(venv / "lib") if venv.exists() else None
    env = {**os.environ, "XDG_CACHE_HOME": str(root.parent / "xdg")}
    done = _run([sys.executable, "-m", "pipeline", "translate", "--quiet"], cwd=root, env=env)
    report = json.loads((root / ".pipeline-report" / "report.json").read_text(encoding="utf-8"))
    refused: dict[str, str] = {}  # catalogs nothing was written for, and the first reason
    written_paths = {c["path"] for c in report["catalogs"] if c.get("written")}
    for issue in report["issues"]:
        if issue["severity"] in ("error", "skipped") and issue["catalog"] not in written_paths:
            refused.setdefault(issue["catalog"], issue["reason"][:160])
    failed_reasons: dict[str, int] = {}
    for issue in report["issues"]:
        if issue["severity"] == "error" and issue["catalog"] in written_paths:
            reason = re.sub(r"'[^']*'|\d+", "…", issue["reason"])[:120]
            failed_reasons[reason] = failed_reasons.get(reason, 0) + 1
    msgfmt_failures, left_charset = [], []
    for path, charset in legacy.items():
        if _run(["msgfmt", "-c", "-o", os.devnull, str(path)]).returncode:
            msgfmt_failures.append(str(path.relative_to(root)))
        if charset and not charset.group(1).lower().startswith(b"utf"):
            try:
                path.read_bytes().decode(charset.group(1).decode())
            except (UnicodeDecodeError, LookupError):
                left_charset.append(str(path.relative_to(root)))
    charsets = sorted(
        {c.group(1).decode().upper() for c in legacy.values() if c and not c.group(1).lower().startswith(b"utf")}
    )
    written = [c for c in report["catalogs"] if c.get("written")]
    return {
        "layout": name,
        "exit_code": done.returncode,
        "catalogs_found": len({c["path"] for c in report["catalogs"]} | set(refused)),
        "catalogs_written": len(written),
        "segments_filled": report["totals"]["segments_translated"] + report["totals"]["segments_copied"],
        "segments_failed": report["totals"]["segments_failed"],
        "catalogs_refused": refused,
        "segment_refusals_in_written_catalogs": failed_reasons,
        "legacy_charsets": charsets,
        "msgfmt_c_failures": msgfmt_failures,
        "left_their_charset": left_charset,
        "venv_untouched": None if before is None else before == _digest(venv / "lib"),
    }


def main() -> None:
    """Fetch, translate and measure every layout; print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", action="store_true", help="run even without BENCH_REAL=1")
    parser.add_argument("--work", type=Path, help="keep the downloads and the translated trees here")
    parser.add_argument("--snapshot", action="append", default=[], metavar="NAME=DIR")
    parser.add_argument("--layouts", default="gnu-legacy,wordpress,django,symfony")
    args = parser.parse_args()
    if not (args.run or os.environ.get("BENCH_REAL") == "1"):
        print(json.dumps({"skipped": "set BENCH_REAL=1 or pass --run (downloads, minutes)"}))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="real-layouts-"))
    work.mkdir(parents=True, exist_ok=True)
    builders = {"gnu-legacy": gnu_legacy, "wordpress": wordpress, "django": django, "symfony": symfony}
    results = [measure(name, builders[name](work)) for name in args.layouts.split(",") if name]
    for spec in args.snapshot:
        name, _, folder = spec.partition("=")
        results.append(measure(name, snapshot(work, name, Path(folder))))
    print(json.dumps({"work": str(work), "layouts": results}, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
