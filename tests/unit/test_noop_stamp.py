"""The no-op stamp: a `pipeline translate --quiet` with nothing to do exits at once, and only when provably so.

Each test starts from :func:`stamped`: a tiny project (embedded service) translated once, then
run again as a complete no-op, which writes the stamp. The folders' mtimes are set back by a
minute first, as they are when the hook runs long after the last edit (a folder changed within
two seconds of the stamp is not trusted). Then something changes, the check falls through, and
the regular run does what it must.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.cli import main, noop
from pipeline.cli.stamp import MAX_FOLDERS

CONFIG = (
    'catalogs = ["locale/*/LC_MESSAGES/*.po"]\n[service]\nurl = "embedded"\n[cache]\ndir = ".cache"\n'
    '[report]\ndir = "report"\n'
)
APP = "locale/de/LC_MESSAGES/app.po"
QUIET = ["translate", "--quiet"]


def catalog(language: str, *texts: str) -> str:
    entries = "".join(f'\nmsgid "{text}"\nmsgstr ""\n' for text in texts)
    return f'msgid ""\nmsgstr ""\n"Language: {language}\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n{entries}'


def age(root: Path, seconds: int = 60) -> None:
    """Set every folder's mtime back, as if the last edit were ``seconds`` ago."""
    past = time.time_ns() - seconds * 10**9
    for folder, _, _ in os.walk(root):
        os.utime(folder, ns=(past, past))


def translated(path: Path) -> bool:
    text = path.read_text("utf-8")
    return 'msgstr ""\n\n' not in text and not text.endswith('msgstr ""\n')


def report(root: Path) -> dict:
    return json.loads((root / "report" / "report.json").read_text())


def stamp_file(root: Path) -> Path:
    return Path(noop.stamp_path(str(root)))


@pytest.fixture
def stamped(tmp_path, monkeypatch, capsys) -> Path:
    """A project whose last run was a no-op that left a stamp the check accepts; the working folder."""
    monkeypatch.delenv("PIPELINE_SERVICE_URL", raising=False)
    monkeypatch.delenv("PIPELINE_AUTH_KEY", raising=False)
    monkeypatch.delenv("PIPELINE_CACHE_URL", raising=False)
    root = tmp_path / "project"
    (root / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    (root / "pipeline.toml").write_text(CONFIG)
    (root / APP).write_text(catalog("de", "Hello", "Goodbye"))
    monkeypatch.chdir(root)
    assert main(QUIET) == 0 and translated(root / APP)
    assert not stamp_file(root).exists()  # it translated: not a no-op
    age(root)
    assert main(QUIET) == 0
    assert capsys.readouterr() == ("", "")
    assert noop.settled(QUIET)
    return root


def regular(argv=QUIET) -> int:
    """A regular run (main never looks at the stamp), as the fast path's fall-through starts it."""
    return main(list(argv))


# -- taken ----------------------------------------------------------------------------------------

PROBE = """
import atexit, json, os, sys
atexit.register(lambda: print(json.dumps(sorted(sys.modules))))
sys.argv = ["pipeline", *sys.argv[1:]]
from pipeline.cli import run
run()
"""
REGULAR_MODULES = (
    "argparse",
    "tomllib",
    "dataclasses",
    "typing",
    "pipeline.config",
    "pipeline.cli.translate",
    "pipeline.run.orchestrate",
    "pipeline.run.state",
    "pipeline.catalog_paths",
)


def probe(root: Path, argv=QUIET) -> tuple[int, set[str], str]:
    done = subprocess.run([sys.executable, "-c", PROBE, *argv], cwd=root, capture_output=True, text=True)
    return done.returncode, set(json.loads(done.stdout.splitlines()[-1])), done.stderr


def make_project(root: Path, monkeypatch, config: str = CONFIG, *messages: str) -> Path:
    """A project in ``root`` (the working folder from now on): config and one German catalog."""
    (root / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    (root / "pipeline.toml").write_text(config)
    (root / APP).write_text(catalog("de", *(messages or ("Hello",))))
    monkeypatch.chdir(root)
    return root


def test_after_a_noop_the_next_process_exits_at_once_importing_none_of_the_regular_path(stamped):
    before = {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in (stamped / "report").iterdir()}
    state = (stamped / ".cache" / "state.json").stat().st_mtime_ns
    stamp = stamp_file(stamped).stat().st_mtime_ns
    code, modules, err = probe(stamped)
    assert (code, err) == (0, "")
    assert modules.isdisjoint(REGULAR_MODULES), modules & set(REGULAR_MODULES)
    assert "pipeline.cli.noop" in modules
    # Nothing written: the report stays (it describes this state), the state and the stamp too.
    assert {p: (p.stat().st_mtime_ns, p.read_bytes()) for p in (stamped / "report").iterdir()} == before
    assert (stamped / ".cache" / "state.json").stat().st_mtime_ns == state
    assert stamp_file(stamped).stat().st_mtime_ns == stamp
    console = subprocess.run([sys.executable, "-m", "pipeline", *QUIET], cwd=stamped, capture_output=True, text=True)
    assert (console.returncode, console.stdout, console.stderr) == (0, "", "")


def test_the_stamp_is_private_and_holds_no_secret(stamped, monkeypatch):
    marker = "s3cr3t-marker-value"
    monkeypatch.setenv("PIPELINE_AUTH_KEY", marker)
    monkeypatch.setenv("PIPELINE_CACHE_URL", f"redis://:{marker}@localhost:6379/0")
    assert not noop.settled(QUIET)  # a variable the settings read changed
    assert regular() == 0 and stamp_file(stamped).exists()
    assert noop.settled(QUIET)
    data = stamp_file(stamped).read_bytes()
    for secret in (marker, f"redis://:{marker}@localhost:6379/0"):
        assert secret.encode() not in data
        assert hashlib.sha256(secret.encode()).hexdigest().encode() not in data
    assert stamp_file(stamped).stat().st_mode & 0o777 == 0o600
    monkeypatch.setenv("PIPELINE_AUTH_KEY", "another key")  # set either way: the value is not part of it
    assert noop.settled(QUIET)
    monkeypatch.setenv("PIPELINE_CACHE_URL", "http://not-a-redis")  # the settings would refuse it now
    assert not noop.settled(QUIET)
    assert regular() == 2


# -- falls through, and the regular run does the right thing ----------------------------------------


def test_a_same_size_edit_with_the_mtime_restored(stamped):
    path = stamped / APP
    st = path.stat()
    data = path.read_bytes()
    edited = data.replace(b'msgid "Hello"', b'msgid "Hallo"')
    assert edited != data and len(edited) == len(data)
    path.write_bytes(edited)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert not noop.settled(QUIET)
    assert regular() == 0
    assert report(stamped)["unchanged_catalogs"] == 0  # read again
    assert "Hallo" in path.read_text() and translated(path)


def test_a_catalog_added_in_an_existing_folder(stamped):
    new = stamped / "locale" / "de" / "LC_MESSAGES" / "more.po"
    new.write_text(catalog("de", "Welcome"))
    assert not noop.settled(QUIET)
    assert regular() == 0 and translated(new)


def test_a_catalog_added_in_a_new_folder(stamped):
    new = stamped / "locale" / "fr" / "LC_MESSAGES" / "app.po"
    new.parent.mkdir(parents=True)
    new.write_text(catalog("fr", "Welcome"))
    age(stamped / "locale" / "fr")  # even with its own folders' mtimes set back: the parent changed
    assert not noop.settled(QUIET)
    assert regular() == 0 and translated(new)


def test_a_catalog_added_deep_below_a_double_star_glob_even_with_the_folders_mtime_set_back(stamped):
    (stamped / "pipeline.toml").write_text(CONFIG.replace("locale/*/LC_MESSAGES/*.po", "locale/**/*.po"))
    assert regular() == 0
    age(stamped)
    assert regular() == 0 and noop.settled(QUIET)
    folder = stamped / "locale" / "de" / "LC_MESSAGES"
    st = folder.stat()
    new = folder / "more.po"
    new.write_text(catalog("de", "Welcome"))
    os.utime(folder, ns=(st.st_atime_ns, st.st_mtime_ns))  # the mtime says nothing; the ctime does
    assert not noop.settled(QUIET)
    assert regular() == 0 and translated(new)


def test_the_folders_watched_follow_the_globs_parts(stamped):
    # (the report out of the tree: */* lists the report folder, which each run rewrites)
    (stamped / "pipeline.toml").write_text(
        CONFIG.replace("locale/*/LC_MESSAGES/*.po", "*/*/LC_MESSAGES/*.po").replace(
            'dir = "report"', 'dir = "../report"'
        )
    )
    (stamped / "build" / "deep").mkdir(parents=True)
    assert regular() == 0
    age(stamped)
    assert regular() == 0 and noop.settled(QUIET)
    (stamped / "build" / "deep" / "output.o").write_text("")  # the glob lists build/, not build/deep/
    (stamped / "build" / "deep" / "more").mkdir()
    assert noop.settled(QUIET)
    new = stamped / "build" / "deep" / "LC_MESSAGES" / "app.po"
    new.parent.mkdir()
    new.write_text(catalog("de", "Welcome"))
    assert not noop.settled(QUIET)
    assert regular() == 0 and translated(new)


def test_a_folder_a_glob_names_replaced_by_another(stamped):
    (stamped / "locale").rename(stamped / "old")
    (stamped / "locale").mkdir()
    (stamped / "old" / "de").rename(stamped / "locale" / "de")  # the same entries below a new locale/
    assert not noop.settled(QUIET)
    assert regular() == 0


def test_a_catalog_removed(stamped):
    (stamped / APP).unlink()
    assert not noop.settled(QUIET)
    assert regular() == 0
    assert report(stamped)["unchanged_catalogs"] == 0


def test_the_config_edited(stamped):
    with (stamped / "pipeline.toml").open("a") as handle:
        handle.write("[translate]\nmark_fuzzy = false\n")
    assert not noop.settled(QUIET)
    assert regular() == 0


def test_a_config_appearing_where_the_cli_looks(stamped):
    (stamped / "pyproject.toml").write_text("[tool.black]\n")
    assert not noop.settled(QUIET)


def test_an_environment_variable_the_settings_read(stamped, monkeypatch):
    monkeypatch.setenv("PIPELINE_SERVICE_URL", "http://localhost:1")
    assert not noop.settled(QUIET)
    monkeypatch.setenv("PIPELINE_SERVICE_URL", "embedded")
    assert not noop.settled(QUIET)
    assert regular() == 0  # the run decides; and it was a no-op again: a new stamp, for this environment
    assert noop.settled(QUIET)
    monkeypatch.delenv("PIPELINE_SERVICE_URL")
    assert not noop.settled(QUIET)


@pytest.mark.parametrize(
    "argv",
    [
        ["translate"],
        ["translate", "-q"],
        ["translate", "--quiet", "--dry-run"],
        ["translate", "--quiet", APP],
        ["check", "--quiet"],
        [],
    ],
)
def test_other_arguments(stamped, argv, capsys):
    assert not noop.settled(argv)
    assert noop.settled(QUIET)


def test_a_command_line_naming_catalogs_is_stamped_for_those_catalogs(stamped):
    argv = [*QUIET, APP]
    assert regular(argv) == 0 and noop.settled(argv) and not noop.settled(QUIET)
    other = stamped / "locale" / "de" / "LC_MESSAGES" / "other.po"
    other.write_text(catalog("de", "Welcome"))  # not named: its folder changed all the same
    assert not noop.settled(argv)
    assert regular(argv) == 0 and not translated(other)


def test_another_command_line_forgets_the_stamp_and_writes_none_when_it_prints(stamped, capsys):
    assert regular(["translate"]) == 0
    assert "unchanged" in capsys.readouterr().out
    assert not stamp_file(stamped).exists() and not noop.settled(QUIET)
    assert regular(["translate", "--quiet", "--dry-run"]) == 0 and not stamp_file(stamped).exists()


def test_a_glossary_file_edited(stamped):
    (stamped / "terms.tsv").write_text("Hello\tHallo\n")
    (stamped / "pipeline.toml").write_text(CONFIG + '[locale_defaults]\nglossaries = ["terms.tsv"]\n')
    assert regular() == 0
    age(stamped)
    assert regular() == 0 and noop.settled(QUIET)
    (stamped / "terms.tsv").write_text("Hello\tServus\n")
    assert not noop.settled(QUIET)
    (stamped / "terms.tsv").unlink()
    assert not noop.settled(QUIET)


def test_the_state_rewritten_by_another_run(stamped):
    state = stamped / ".cache" / "state.json"
    data = json.loads(state.read_text())
    data["catalogs"].clear()
    state.write_text(json.dumps(data))
    assert not noop.settled(QUIET)
    assert regular() == 0
    assert report(stamped)["unchanged_catalogs"] == 0  # read again, and settled again
    assert APP in json.loads(state.read_text())["catalogs"]


def test_the_report_deleted(stamped):
    (stamped / "report" / "report.json").unlink()
    assert not noop.settled(QUIET)
    assert regular() == 0
    assert report(stamped)["unchanged_catalogs"] == 1


def test_a_catalog_made_read_only(stamped):
    (stamped / APP).chmod(0o444)
    assert not noop.settled(QUIET)
    assert regular() == 1  # refused, as the regular discovery does


def test_a_catalog_replaced_by_a_link_to_the_same_bytes_outside(stamped, tmp_path):
    outside = tmp_path / "elsewhere.po"
    outside.write_bytes((stamped / APP).read_bytes())
    (stamped / APP).unlink()
    (stamped / APP).symlink_to(outside)
    age(stamped)
    assert not noop.settled(QUIET)
    assert regular() == 1  # a link out of the project: refused


def test_a_link_to_a_catalog_pointed_elsewhere_in_the_project(stamped):
    store = stamped / "store"
    store.mkdir()
    (store / "a.po").write_bytes((stamped / APP).read_bytes())
    (store / "b.po").write_bytes((stamped / APP).read_bytes())
    (stamped / APP).unlink()
    (stamped / APP).symlink_to(store / "a.po")
    assert regular() == 0 and not noop.settled(QUIET)  # store/a.po was read: settled now
    age(stamped)
    assert regular() == 0 and noop.settled(QUIET)
    (stamped / APP).unlink()
    (stamped / APP).symlink_to(store / "b.po")  # same name, same kind, same bytes: another catalog
    assert not noop.settled(QUIET)
    assert regular() == 0
    assert report(stamped)["unchanged_catalogs"] == 0  # store/b.po had never been settled


def test_a_racy_stamp_is_not_trusted(stamped):
    """A folder changed within 2 s before the stamp's look: an entry added and removed again in that
    clock tick leaves its times as they were, so the look proves nothing."""
    stamp = json.loads(stamp_file(stamped).read_text())
    newest = max(signature[0] for _, signature, _ in stamp["folders"] if signature)
    stamp["written_ns"] = newest + 10**9
    stamp_file(stamped).write_text(json.dumps(stamp))
    assert not noop.settled(QUIET)
    stamp["written_ns"] = newest + 3 * 10**9
    stamp_file(stamped).write_text(json.dumps(stamp))
    assert noop.settled(QUIET)


def test_no_stamp_right_after_the_catalogs_folders_changed(tmp_path, monkeypatch):
    root = make_project(tmp_path / "fresh", monkeypatch)
    assert main(QUIET) == 0 and main(QUIET) == 0  # translated (its folder written), then a no-op
    assert not stamp_file(root).exists()
    age(root)  # later
    assert main(QUIET) == 0 and noop.settled(QUIET)


def test_a_temporary_file_that_came_and_went_in_a_watched_folder_changes_nothing(stamped):
    folder = stamped / "locale" / "de" / "LC_MESSAGES"
    (folder / ".app.po.swp").write_text("")
    assert not noop.settled(QUIET)
    (folder / ".app.po.swp").unlink()
    assert noop.settled(QUIET)  # the times moved; the entries are the same


def test_a_report_folder_a_glob_looks_into_keeps_the_stamp_from_being_written(tmp_path, monkeypatch):
    """The run rewrites its report just before the stamp's look: that folder is always racy."""
    root = make_project(tmp_path / "intree", monkeypatch, CONFIG.replace("locale/*/LC_MESSAGES/*.po", "**/*.po"))
    assert main(QUIET) == 0
    age(root)
    assert main(QUIET) == 0 and not stamp_file(root).exists()
    (root / "pipeline.toml").write_text(
        CONFIG.replace("locale/*/LC_MESSAGES/*.po", "**/*.po").replace('dir = "report"', 'dir = "../report"')
    )
    assert main(QUIET) == 0
    age(root)
    assert main(QUIET) == 0 and noop.settled(QUIET)


def test_no_stamp_without_a_cache_folder(tmp_path, monkeypatch):
    root = make_project(tmp_path / "nocache", monkeypatch, CONFIG.replace('dir = ".cache"', 'dir = ""'))
    assert main(QUIET) == 0
    age(root)
    assert main(QUIET) == 0 and not stamp_file(root).exists()


def test_no_stamp_when_the_globs_reach_too_many_folders(tmp_path, monkeypatch):
    root = tmp_path / "wide"
    (root / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    for number in range(MAX_FOLDERS + 1):
        (root / "other" / str(number)).mkdir(parents=True)
    (root / "pipeline.toml").write_text(CONFIG.replace("locale/*/LC_MESSAGES/*.po", "**/*.po"))
    (root / APP).write_text(catalog("de", "Hello"))
    monkeypatch.chdir(root)
    assert main(QUIET) == 0
    age(root)
    assert main(QUIET) == 0 and not stamp_file(root).exists()


# -- damaged or hostile stamps: never a traceback, always the regular path --------------------------


def _rewrite(stamped: Path, change) -> None:
    stamp = json.loads(stamp_file(stamped).read_text())
    change(stamp)
    stamp_file(stamped).write_text(json.dumps(stamp))


@pytest.mark.parametrize(
    "damage",
    [
        b"",
        b"not json",
        b"{",
        b"[]",
        b"null",
        b'"text"',
        b"\xff\xfe\x00binary",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"version": 1, "pipeline": "0.1.0"}',
        b" " * (noop.MAX_STAMP_BYTES + 1),
    ],
    ids=["empty", "not-json", "truncated", "list", "null", "string", "binary", "deep", "partial", "huge"],
)
def test_a_damaged_stamp_falls_through(stamped, damage):
    stamp_file(stamped).write_bytes(damage)
    assert not noop.settled(QUIET)


@pytest.mark.parametrize(
    "change",
    [
        lambda s: s.update(written_ns="1"),
        lambda s: s.update(written_ns=True),
        lambda s: s.update(argv="translate"),
        lambda s: s.update(folders=[[1, 2]]),
        lambda s: s.update(folders=[["/", "x"]]),
        lambda s: s.update(folders={}),
        lambda s: s.update(catalogs=[["a"]]),
        lambda s: s.update(catalogs=[[1, "x"]]),
        lambda s: s.update(files=[[None, None]]),
        lambda s: s.update(real=[["/", 3]]),
        lambda s: s.update(version=2),
        lambda s: s.update(pipeline="0.0.0"),
        lambda s: s.update(code="x"),
        lambda s: s.update(env="x"),
        lambda s: s.update(cwd="/"),
        lambda s: s["catalogs"][0].__setitem__(1, "0" * 64),
        lambda s: s["folders"][0].__setitem__(1, [1, 2, 3]),
    ],
    ids=lambda _: "change",
)
def test_a_hostile_stamp_falls_through(stamped, change):
    _rewrite(stamped, change)
    assert noop.settled(QUIET) is False


def test_a_folder_where_the_stamp_goes_is_no_trouble(stamped):
    stamp_file(stamped).unlink()
    stamp_file(stamped).mkdir()
    assert not noop.settled(QUIET)
    assert regular() == 0  # nothing to forget, nowhere to stamp: still a run that succeeds


def test_a_process_with_a_damaged_stamp_runs_the_regular_path_silently(stamped):
    stamp_file(stamped).write_bytes(b'{"version": 1, "folders": [[[')
    code, modules, err = probe(stamped)
    assert (code, err) == (0, "") and "pipeline.run.orchestrate" in modules
    assert noop.settled(QUIET)  # that regular run was a no-op: stamped again


# -- what changes while the stamp is written makes no stamp ------------------------------------------


def test_no_stamp_when_the_config_no_longer_makes_the_runs_settings(stamped, monkeypatch):
    """The run read the config before the stamp hashes it: an edit in between must not be vouched for."""
    import dataclasses

    import pipeline.cli.translate as translate

    real, calls = translate._settings, []

    def settings(args):
        calls.append(args)
        made = real(args)
        return made if len(calls) == 1 else dataclasses.replace(made, mark_fuzzy=not made.mark_fuzzy)

    monkeypatch.setattr(translate, "_settings", settings)
    assert regular() == 0 and len(calls) == 2
    assert not stamp_file(stamped).exists()


def test_no_stamp_when_a_catalog_comes_or_a_file_changes_while_it_is_written(stamped, monkeypatch):
    import pipeline.cli.stamp as stamp

    real = stamp.find_catalogs

    def meanwhile(settings, paths):
        found = real(settings, paths)
        (stamped / "locale" / "de" / "LC_MESSAGES" / "late.po").write_text(catalog("de", "Late"))
        return found

    monkeypatch.setattr(stamp, "find_catalogs", meanwhile)
    assert regular() == 0 and not stamp_file(stamped).exists()
    monkeypatch.setattr(stamp, "find_catalogs", real)  # (not undo(): that would leave the project's folder)
    age(stamped)
    assert regular() == 0 and not noop.settled(QUIET)  # late.po translated: not a no-op
    age(stamped)

    def edited(settings, paths):
        found = real(settings, paths)
        (stamped / "report" / "report.md").write_text("edited")
        return found

    monkeypatch.setattr(stamp, "find_catalogs", edited)
    assert regular() == 0 and not stamp_file(stamped).exists()


PLURAL = (
    'msgid ""\nmsgstr ""\n"Language: pl\\n"\n"Content-Type: text/plain; charset=UTF-8\\n"\n'
    '"Plural-Forms: nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);\\n"\n'
    '\nmsgid "One file"\nmsgid_plural "Several files"\nmsgstr[0] ""\nmsgstr[1] ""\nmsgstr[2] ""\n'
)


def test_the_warnings_settled_catalogs_repeat_do_not_keep_the_stamp_away_but_any_other_does(stamped, monkeypatch):
    polish = stamped / "locale" / "pl" / "LC_MESSAGES" / "app.po"
    polish.parent.mkdir(parents=True)
    polish.write_text(PLURAL)
    assert regular() == 0
    age(stamped)
    assert regular() == 0
    warnings = [i for i in report(stamped)["issues"] if i["severity"] == "warning"]
    assert warnings and report(stamped)["unchanged_catalogs"] == 2  # repeated by the skip, in the report only
    assert noop.settled(QUIET)

    import pipeline.run.orchestrate as orchestrate
    from pipeline.model import Issue, Severity

    real = orchestrate.run_translate

    def with_a_warning(*args, **kwargs):
        report = real(*args, **kwargs)
        report.issues.append(Issue("somewhere", "a warning of this run alone", severity=Severity.WARNING))
        return report

    monkeypatch.setattr(orchestrate, "run_translate", with_a_warning)
    assert regular() == 0 and not stamp_file(stamped).exists()


def test_no_stamp_when_the_service_url_carries_credentials(stamped, monkeypatch):
    monkeypatch.setenv("PIPELINE_SERVICE_URL", "http://user:s3cr3t@localhost:1")
    assert regular() == 0  # a no-op needs no service
    assert not stamp_file(stamped).exists()
    monkeypatch.setenv("PIPELINE_SERVICE_URL", "http://localhost:1")
    assert regular() == 0 and noop.settled(QUIET)
