"""Attacks on the no-op stamp: a stamp someone else wrote, or that watches nothing, proves no no-op."""

from __future__ import annotations

import json
import os

from test_noop_stamp import APP, QUIET, catalog, regular, stamp_file, stamped, translated  # noqa: F401

from pipeline.cli import noop


def test_attack_a_stamp_emptied_by_someone_else_must_not_prove_a_noop(stamped):  # noqa: F811
    (stamped / APP).write_text(catalog("de", "Hello", "Goodbye", "Brand new"))
    stamp = json.loads(stamp_file(stamped).read_text())
    stamp.update(catalogs=[], folders=[])  # every field well formed: only what it claims is gone
    stamp_file(stamped).write_text(json.dumps(stamp))
    os.chmod(stamp_file(stamped), 0o644)  # and not even private any more
    # A stamp that watches nothing proves nothing: a regular run would translate "Brand new".
    assert not noop.settled(QUIET)
