"""Issue 36's acceptance: install the project as users do, one fresh virtualenv per route, and run
``pipeline init`` and ``pipeline translate`` on a generated project; prints JSON, one row per route.

Routes:

- ``pip-source``: ``pip install <source tree>`` (no extras), as the README says;
- ``pip-wheel``: ``pip install <the wheel built from it>``, as the package index would serve it;
- ``pipx``: ``pipx install <source tree>`` (pipx from the machine, else ``pip install pipx`` into a
  helper virtualenv);
- ``pre-commit``: the pre-commit framework (``pip install pre-commit``) installing the hooks of
  ``.pre-commit-hooks.yaml`` from a git repository holding this working tree, pinned at its commit
  as docs/recipes.md says (``rev:`` a commit), with the ``.pre-commit-config.yaml`` of the recipe as
  written and the ``pipeline.toml`` ``pipeline init`` writes: the first commit fails with the
  catalogs translated (as formatters do), the second passes.

Each row: exit codes of init and translate (or of the two commits), units translated, the seconds
the install took, and for the pip and pipx routes the two commands that serve over HTTP, each
started briefly as the README says: ``pipeline review --no-open`` (the page answers 200 at the
address it prints, and SIGTERM ends it with exit 0) and ``pipeline serve --port 0`` (``pipeline
languages`` reads its languages through it, and SIGTERM ends it with exit 0). Every route must
translate with exit 0, and review and serve must work on the pip and pipx routes.

It installs from the package index pip is configured with and takes minutes, so ``make bench``
skips it unless ``BENCH_INSTALL=1`` (or ``--run``).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
COPIED = ("pipeline", "pyproject.toml", "README.md", ".pre-commit-hooks.yaml")
CATALOG = """\
msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Language: {lang}\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#, python-format
msgid "Deleted %(name)s"
msgstr ""

msgid "Share with <b>everyone</b>"
msgstr ""

msgid "Open"
msgstr ""
"""
LANGS = ("de", "fr", "ja")


def _run(argv: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


def _env(home: Path) -> dict[str, str]:
    """A user with nothing of ours in the environment; their caches under ``home``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIPELINE_", "XDG_", "GIT_", "PRE_COMMIT"))}
    env.update(
        HOME=str(home),
        XDG_CACHE_HOME=str(home / ".cache"),
        PRE_COMMIT_HOME=str(home / "pre-commit"),
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME="User",
        GIT_AUTHOR_EMAIL="user@example.org",
        GIT_COMMITTER_NAME="User",
        GIT_COMMITTER_EMAIL="user@example.org",
    )
    return env


def _project(root: Path) -> Path:
    """A Django-like project: locale/<lang>/LC_MESSAGES/django.po, everything untranslated."""
    for lang in LANGS:
        folder = root / "locale" / lang / "LC_MESSAGES"
        folder.mkdir(parents=True)
        (folder / "django.po").write_text(CATALOG.format(lang=lang), encoding="utf-8")
    (root / "manage.py").write_text("# a Django project\n", encoding="utf-8")
    return root


def _translated(root: Path) -> int:
    from pipeline.catalogs import UnitState, read_catalog

    return sum(
        1
        for path in root.glob("locale/*/LC_MESSAGES/django.po")
        for unit in read_catalog(path).units
        if unit.state is not UnitState.UNTRANSLATED
    )


def _venv(where: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(where)], check=True)
    return where / "bin"


def _init_and_translate(pipeline: Path, work: Path, env: dict[str, str]) -> dict[str, object]:
    root = _project(work / "project")
    init = _run([str(pipeline), "init"], root, env)
    translate = _run([str(pipeline), "translate"], root, env)
    return {
        "init_exit": init.returncode,
        "translate_exit": translate.returncode,
        "translated": _translated(root),
        "of": 3 * len(LANGS),
        "review": _review(pipeline, root, env),
        "serve": _serve(pipeline, root, env),
        "errors": [line for line in (init.stderr + translate.stderr).splitlines() if "error" in line][:5],
    }


def _started(argv: list[str], cwd: Path, env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    """``argv`` started, and the first line it prints on stdout (its address; empty if it stopped first)."""
    process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    return process, process.stdout.readline().strip()


def _stopped(process: subprocess.Popen[str]) -> dict[str, object]:
    """SIGTERM, then what the process said on stderr and its exit code."""
    process.terminate()
    try:
        _, err = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        _, err = process.communicate()
    return {"exit": process.returncode, "stderr": err.strip().splitlines()[-2:]}


def _review(pipeline: Path, root: Path, env: dict[str, str]) -> dict[str, object]:
    """``pipeline review --no-open`` after the run: its page answers at the address it prints."""
    process, url = _started([str(pipeline), "review", "--no-open"], root, env)
    status = None
    if url.startswith("http://127.0.0.1:"):
        with urllib.request.urlopen(url, timeout=30) as page:
            status = page.status
    return {"url_printed": bool(url), "page_status": status} | _stopped(process)


def _serve(pipeline: Path, root: Path, env: dict[str, str]) -> dict[str, object]:
    """``pipeline serve --port 0``, and ``pipeline languages`` through it with the key it was given."""
    key = "install-routes-key"
    process, line = _started([str(pipeline), "serve", "--port", "0"], root, env | {"PIPELINE_SERVE_AUTH_KEYS": key})
    url = line.removeprefix("pipeline serve: listening on ")
    languages = None
    if url != line:
        asked = _run([str(pipeline), "languages", "--service-url", url], root, env | {"PIPELINE_AUTH_KEY": key})
        languages = {"exit": asked.returncode, "lines": len(asked.stdout.splitlines())}
    return {"listening": url != line, "languages": languages} | _stopped(process)


def pip_source(work: Path, source: Path, env: dict[str, str]) -> dict[str, object]:
    """``pip install <source tree>``, no extras."""
    bin_dir = _venv(work / "venv")
    started = time.monotonic()
    install = _run([str(bin_dir / "pip"), "install", "--quiet", str(source)], work, env)
    row = {"install_exit": install.returncode, "install_seconds": round(time.monotonic() - started, 1)}
    return row | _init_and_translate(bin_dir / "pipeline", work, env)


def pip_wheel(work: Path, source: Path, env: dict[str, str]) -> dict[str, object]:
    """The wheel built from the source tree, installed by name as the index would serve it."""
    built = _run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "-w", str(work / "dist"), str(source)], work, env
    )
    if built.returncode:
        return {"install_exit": built.returncode, "error": built.stderr[-500:]}
    (wheel,) = (work / "dist").glob("*.whl")
    bin_dir = _venv(work / "venv")
    started = time.monotonic()
    install = _run([str(bin_dir / "pip"), "install", "--quiet", str(wheel)], work, env)
    row = {"wheel": wheel.name, "install_exit": install.returncode}
    row["install_seconds"] = round(time.monotonic() - started, 1)
    return row | _init_and_translate(bin_dir / "pipeline", work, env)


def pipx(work: Path, source: Path, env: dict[str, str]) -> dict[str, object]:
    """``pipx install <source tree>`` into a pipx home of its own."""
    found = shutil.which("pipx")
    if found is None:
        helper = _venv(work / "pipx-venv")
        got = _run([str(helper / "pip"), "install", "--quiet", "pipx"], work, env)
        if got.returncode:
            return {"skipped": f"pipx could not be installed: {got.stderr[-300:]}"}
        found = str(helper / "pipx")
    env = env | {"PIPX_HOME": str(work / "pipx"), "PIPX_BIN_DIR": str(work / "pipx-bin")}
    started = time.monotonic()
    install = _run([found, "install", str(source)], work, env)
    row = {"install_exit": install.returncode, "install_seconds": round(time.monotonic() - started, 1)}
    if install.returncode:
        return row | {"error": install.stderr[-500:]}
    return row | _init_and_translate(work / "pipx-bin" / "pipeline", work, env)


def pre_commit(work: Path, source: Path, env: dict[str, str]) -> dict[str, object]:
    """The recipe's .pre-commit-config.yaml, the hook repository pinned at a commit, init's pipeline.toml."""
    tools = _venv(work / "tools")
    got = _run([str(tools / "pip"), "install", "--quiet", "pre-commit", str(source)], work, env)
    if got.returncode:
        return {"skipped": f"pre-commit could not be installed: {got.stderr[-300:]}"}
    rev = _run(["git", "rev-parse", "HEAD"], source, env).stdout.strip()
    root = _project(work / "project")
    steps = [
        _run(["git", "init", "-q"], root, env),
        _run([str(tools / "pipeline"), "init"], root, env),  # the config a user gets
    ]
    (root / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {source}\n    rev: {rev}\n    hooks:\n      - id: translate-catalogs\n"
        "      - id: check-catalogs\n",
        encoding="utf-8",
    )
    hook_env = env | {"PATH": f"{tools}{os.pathsep}{env.get('PATH', '')}"}
    steps += [_run(["pre-commit", "install"], root, hook_env), _run(["git", "add", "-A"], root, hook_env)]
    started = time.monotonic()
    first = _run(["git", "commit", "-q", "-m", "catalogs"], root, hook_env)  # installs the hook, translates
    seconds = round(time.monotonic() - started, 1)
    _run(["git", "add", "-A"], root, hook_env)
    second = _run(["git", "commit", "-q", "-m", "catalogs"], root, hook_env)
    return {
        "rev": rev[:12],
        "setup_exits": [s.returncode for s in steps],
        "first_commit_exit": first.returncode,
        "first_commit_modified_files": "files were modified by this hook" in first.stdout + first.stderr,
        "first_commit_seconds": seconds,
        "second_commit_exit": second.returncode,
        "translated": _translated(root),
        "of": 3 * len(LANGS),
        "hook_errors": [line for line in (first.stdout + first.stderr).splitlines() if "error" in line.lower()][:5],
    }


def _hook_repository(where: Path) -> Path:
    """A git repository holding this working tree (uncommitted work too), as a user's clone would."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, where / name, ignore=ignore)
        else:
            shutil.copy2(source, where / name)
    env = _env(where.parent)
    for argv in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-q", "-m", "pipeline"]):
        subprocess.run(argv, cwd=where, env=env, check=True, capture_output=True)
    return where


ROUTES = {"pip-source": pip_source, "pip-wheel": pip_wheel, "pipx": pipx, "pre-commit": pre_commit}


def main(argv: list[str]) -> int:
    if os.environ.get("BENCH_INSTALL") != "1" and "--run" not in argv:
        print(json.dumps({"skipped": "installs from the package index for minutes: BENCH_INSTALL=1 or --run"}))
        return 0
    wanted = [a for a in argv if a in ROUTES] or list(ROUTES)
    rows = []
    with tempfile.TemporaryDirectory(prefix="install-routes-") as tmp:
        source = _hook_repository(Path(tmp) / "pipeline-src")
        for name in wanted:
            work = Path(tmp) / name
            work.mkdir()
            row = {"route": name} | ROUTES[name](work, source, _env(work / "home"))
            rows.append(row)
            print(json.dumps(row), flush=True)
    ok = all(
        r.get("translate_exit", r.get("second_commit_exit")) == 0 and r.get("translated") == r.get("of")
        for r in rows
        if "skipped" not in r
    )
    served = all(_served(r) for r in rows if "skipped" not in r and "review" in r)
    print(json.dumps({"all_routes_translate": ok, "review_and_serve_work": served, "routes": len(rows)}))
    return 0 if ok and served else 1


def _served(row: dict[str, object]) -> bool:
    """Whether the row's review page answered and its server gave the languages, both ending with exit 0."""
    review, serve = row["review"], row["serve"]
    assert isinstance(review, dict) and isinstance(serve, dict)
    languages = serve["languages"]
    return (
        review["page_status"] == 200
        and review["exit"] == 0
        and isinstance(languages, dict)
        and languages["exit"] == 0
        and languages["lines"] > 0
        and serve["exit"] == 0
    )


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
