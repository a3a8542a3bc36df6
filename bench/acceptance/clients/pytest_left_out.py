"""A pytest plugin for the official Python client's suite: deselects exactly the tests it is given.

pytest's own ``--deselect`` takes node id prefixes, so leaving out ``test_text`` would also drop
``test_text_tags``. Here a name leaves out that test and its parametrizations only. The names come
from the environment variable :data:`VARIABLE` (a JSON list), set by ``bench/acceptance/clients/suites.py``;
the node ids left out are written, as a JSON list, to the file named by :data:`REPORT`.
"""

from __future__ import annotations

import json
import os

import pytest

VARIABLE = "PIPELINE_LEFT_OUT_TESTS"
REPORT = "PIPELINE_LEFT_OUT_REPORT"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Move the named tests out of the run, reported as deselected."""
    names = set(json.loads(os.environ.get(VARIABLE, "[]")))
    kept: list[pytest.Item] = []
    dropped: list[pytest.Item] = []
    for item in items:
        (dropped if item.nodeid.split("[", 1)[0] in names else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
    if os.environ.get(REPORT):
        with open(os.environ[REPORT], "w", encoding="utf-8") as report:
            json.dump([item.nodeid for item in dropped], report)
