"""Whether the ``state.json`` found in the cache folder is the pipeline's (replaced by a save) or another
program's (left as it is, the save refused with a warning) is told by what it holds, not by which key comes
first: a file of ours reordered by a tool or a hand, begun with a byte-order mark by an editor, or written by
another version (whose first key may be another) is ours; another program's JSON whose first key happens to
be one of ours ("version": source maps, manifests) is not. So are ``synced.json`` and ``rejections.json``,
which their writers read before they replace them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.files.own import NotOurs
from pipeline.resources.synced import RECORD_NAME, SyncRecord
from pipeline.run.journal import STATE_NAME, Journal, Merged
from pipeline.run.provenance import REJECTIONS_NAME, Rejections
from tests.run_fakes import FakeService, cache_dir, project, run

RECORD = {"template": "po/messages.pot", "template_sha256": "a" * 64, "sha256": "b" * 64, "version": "0.1.0"}


def _saved(folder: Path) -> list[str]:
    """What a save leaves in ``folder``'s state.json after noting one merge, or the warning that refused it."""
    journal = Journal(folder)
    journal.note_merged("po/de.po", Merged(**RECORD))
    try:
        journal.save()
    except OSError as exc:
        return [str(exc)]
    return sorted(json.loads((folder / STATE_NAME).read_bytes())["merged"])


OURS = {
    "reordered": b'{"version": 1, "merged": {"po/fr.po": %s}, "languages": {}, "catalogs": {}}\n'
    % json.dumps(RECORD).encode(),
    "indented, as earlier versions wrote it": (
        b'{\n "catalogs": {},\n "merged": {\n  "po/fr.po": %s\n },\n "version": 1\n}\n' % json.dumps(RECORD).encode()
    ),
    "with a byte-order mark": b'\xef\xbb\xbf{"catalogs": {}, "merged": {"po/fr.po": %s}, "version": 1}\n'
    % json.dumps(RECORD).encode(),
    "of a later version, another key first": b'{"blocked": [], "catalogs": {}, "merged": {}, "version": 2}\n',
}


@pytest.mark.parametrize("kind", list(OURS))
def test_a_state_file_of_ours_is_replaced_whatever_its_first_key(tmp_path: Path, kind: str) -> None:
    (tmp_path / STATE_NAME).write_bytes(OURS[kind])
    kept = [] if "later version" in kind else ["po/fr.po"]  # another version's records are not read
    assert _saved(tmp_path) == sorted(["po/de.po", *kept])


THEIRS = {
    "a source map": b'{"version": 3, "sources": ["app.ts"], "names": [], "mappings": "AAAA"}\n',
    "a manifest": b'{"version": 1, "name": "app", "languages": ["de", "fr"]}\n',
    "settings": b'{"languages": {"de": "German"}, "theme": "dark"}\n',
    "an array": b'[{"catalogs": {}, "version": 1}]\n',
    "damaged, begun otherwise": b'{"version": 3, "sources": ["app.ts"], "na',
}


@pytest.mark.parametrize("kind", list(THEIRS))
def test_another_programs_json_is_left_as_it_is_whatever_its_first_key(tmp_path: Path, kind: str) -> None:
    (tmp_path / STATE_NAME).write_bytes(THEIRS[kind])
    [refusal] = _saved(tmp_path)
    assert "is not a file pipeline wrote" in refusal and "[cache] dir" in refusal
    assert (tmp_path / STATE_NAME).read_bytes() == THEIRS[kind]


def test_a_state_file_of_ours_cut_short_is_replaced(tmp_path: Path) -> None:
    (tmp_path / STATE_NAME).write_bytes(b'{"catalogs": {"po/de.po": {"size": 1')  # nothing to lose: parsed again
    assert _saved(tmp_path) == ["po/de.po"]


def test_a_run_keeps_what_a_reordered_state_file_remembers_and_leaves_a_source_map_alone(tmp_path: Path) -> None:
    settings = project(tmp_path)
    folder = cache_dir(settings)
    first = run(settings, FakeService())
    assert first.exit_code == 0, first.issues
    state = json.loads((folder / STATE_NAME).read_bytes())
    reordered = dict(reversed(list(state.items())))
    assert next(iter(reordered)) != "catalogs"
    (folder / STATE_NAME).write_text(json.dumps(reordered, indent=2), encoding="utf-8")
    service = FakeService()
    again = run(settings, service)
    assert again.exit_code == 0 and service.requests == []  # every catalog still settled
    assert not [i for i in again.issues if STATE_NAME in i.reason]

    (folder / STATE_NAME).write_bytes(THEIRS["a source map"])
    later = run(settings, FakeService())
    assert (folder / STATE_NAME).read_bytes() == THEIRS["a source map"]
    assert [i for i in later.issues if STATE_NAME in i.reason and "is not a file pipeline wrote" in i.reason]


def _synced(folder: Path) -> None:
    SyncRecord(folder).save("https://api.example", "f" * 64)


def _rejected(folder: Path) -> None:
    Rejections(folder).record(("DE", None, ("Save",)), ("Speichern",))


@pytest.mark.parametrize(("name", "save"), [(RECORD_NAME, _synced), (REJECTIONS_NAME, _rejected)])
def test_the_other_state_files_are_told_by_what_they_hold_too(tmp_path: Path, name: str, save: Any) -> None:
    save(tmp_path)
    ours = json.loads((tmp_path / name).read_bytes())
    (tmp_path / name).write_text(json.dumps(dict(reversed(list(ours.items())))), encoding="utf-8")  # version first
    save(tmp_path)
    assert json.loads((tmp_path / name).read_bytes()) == ours  # replaced, and its records kept
    for theirs in (THEIRS["a source map"], THEIRS["a manifest"]):
        (tmp_path / name).write_bytes(theirs)
        with pytest.raises(NotOurs, match="is not a file pipeline wrote"):
            save(tmp_path)
        assert (tmp_path / name).read_bytes() == theirs
