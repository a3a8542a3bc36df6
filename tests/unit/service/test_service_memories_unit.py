"""Translation memories: the documented score, thresholds, file loading; style lists across two paid accounts."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.errors import UsageError
from pipeline.service import cli
from pipeline.service.config import AccountSpec, MemoryLoadError, MemorySpec
from pipeline.service.engine.tm_match import MemoryIndex, normalize, passes, score
from pipeline.service.store.memories import load_memory, memory_id_for
from tests.unit.service.conftest import InProcess


def _levenshtein(a: str, b: str) -> int:
    row = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, y in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (x != y))
    return row[-1]


@given(st.text("ab c", max_size=12), st.text("ab c", max_size=12))
def test_score_is_normalized_levenshtein_similarity(a: str, b: str) -> None:
    na, nb = normalize(a), normalize(b)
    longest = max(len(na), len(nb))
    expected = 100.0 if longest == 0 else 100 * (1 - _levenshtein(na, nb) / longest)
    assert score(a, b) == pytest.approx(expected)
    for threshold in (0, 50, 75, 100):
        assert passes(na, nb, threshold) == (longest == 0 or 100 * _levenshtein(na, nb) <= (100 - threshold) * longest)


def test_normalization_and_examples() -> None:
    assert normalize("  Save\t the\u00a0file \n") == "Save the file"
    assert score("Save the file", "Save the file") == 100
    assert score("save the file", "Save the file") == pytest.approx(100 * (1 - 1 / 13))
    assert score("abcd", "abXY") == 50


def test_threshold_boundary_is_exact() -> None:
    index = MemoryIndex("en", "de", (("abcd", "ABCD"),))
    assert index.best_match("abcX", 75) is not None  # score exactly 75
    assert index.best_match("abcX", 76) is None
    assert index.best_match("xyzw", 0) is not None  # threshold 0 takes any segment


def test_best_and_first_segment_wins() -> None:
    index = MemoryIndex("en", "de", (("one two three", "first"), ("one two thre", "second"), ("one two three", "dup")))
    found = [index.best_match(text, 75) for text in ("one  two three", "one two thr", "one two thre!")]
    assert [m.target if m else None for m in found] == ["first", "second", "first"]  # a tie: the first segment wins


def test_load_po_compendium_and_tmx(tmp_path: Path) -> None:
    po = tmp_path / "c.po"
    po.write_text(
        'msgid ""\nmsgstr ""\n"Language: pt_BR\\n"\n"X-Source-Language: de\\n"\n\n'
        'msgid "Datei"\nmsgid_plural "Dateien"\nmsgstr[0] "arquivo"\nmsgstr[1] "arquivos"\n\n'
        'msgid "leer"\nmsgstr ""\n',
        encoding="utf-8",
    )
    memory = load_memory("paid", MemorySpec("c", po))
    assert memory.source_lang == "de" and list(memory.by_target) == ["pt"]
    assert memory.by_target["pt"].segments == (("Datei", "arquivo"), ("Dateien", "arquivos"))
    assert memory.memory_id == memory_id_for("paid", "c") != memory_id_for("free", "c")
    tmx = tmp_path / "all.tmx"
    tmx.write_text(
        '<tmx version="1.4"><header srclang="*all*"/><body>'
        '<tu srclang="fr"><tuv lang="FR"><seg>Bonjour <hi>tout</hi> le monde</seg></tuv>'
        '<tuv xml:lang="it"><seg>Ciao a tutti</seg></tuv></tu></body></tmx>',
        encoding="utf-8",
    )
    memory = load_memory("paid", MemorySpec("all", tmx))
    assert memory.source_lang == "fr"
    assert memory.by_target["it"].segments == (("Bonjour tout le monde", "Ciao a tutti"),)


@pytest.mark.parametrize(
    ("name", "content", "words"),
    [
        ("x.tmx", "<tmx><header srclang='en'/><body><tu><tuv xml:lang='en'><seg>a</seg></tuv>", "not well-formed"),
        ("x.tmx", "<tmx><header/><body/></tmx>", "srclang"),
        (
            "x.tmx",
            "<tmx><header srclang='en'/><body><tu><tuv xml:lang='qq'><seg>a</seg></tuv></tu></body></tmx>",
            "line 1: unknown language 'qq'",
        ),
        ("x.po", 'msgid ""\nmsgstr ""\n\nmsgid "a"\nmsgstr "b"\n', "Language"),
        ("x.csv", "a,b", "unknown format"),
    ],
)
def test_load_errors_name_the_memory_and_the_problem(tmp_path: Path, name: str, content: str, words: str) -> None:
    path = tmp_path / name
    path.write_text(content, encoding="utf-8")
    with pytest.raises(MemoryLoadError) as caught:
        load_memory("paid", MemorySpec("m", path))
    assert "translation memory 'm'" in str(caught.value) and words in str(caught.value)


def test_service_config_provisions_memories_per_account(make_client: Callable[..., InProcess], tmp_path: Path) -> None:
    po = tmp_path / "m.po"
    po.write_text('msgid ""\nmsgstr ""\n"Language: de\\n"\n\nmsgid "Hello"\nmsgstr "Hallo"\n', encoding="utf-8")
    accounts = (AccountSpec("paid", ("a",), (), (MemorySpec("m", po),)), AccountSpec("paid", ("b",)))
    client = make_client(accounts=accounts)
    mine = client.get("/v3/translation_memories", headers={"Authorization": "Service-Auth-Key a"}).json()
    theirs = client.get("/v3/translation_memories", headers={"Authorization": "Service-Auth-Key b"}).json()
    assert [m["name"] for m in mine["translation_memories"]] == ["m"]
    assert theirs == {"translation_memories": [], "total_count": 0}
    body = {
        "text": ["Hello"],
        "source_lang": "EN",
        "target_lang": "DE",
        "translation_memory_id": memory_id_for("paid", "m"),
    }
    assert (
        client.post("/v2/translate", json=body, headers={"Authorization": "Service-Auth-Key a"}).json()["translations"][
            0
        ]["text"]
        == "Hallo"
    )
    assert client.post("/v2/translate", json=body, headers={"Authorization": "Service-Auth-Key b"}).status_code == 404


def test_style_lists_are_isolated_between_paid_accounts(make_client: Callable[..., InProcess]) -> None:
    client = make_client(accounts=(AccountSpec("paid", ("a",)), AccountSpec("paid", ("b",))))
    a, b = ({"Authorization": f"Service-Auth-Key {k}"} for k in "ab")
    style_id = client.post("/v3/style_rules", json={"name": "s", "language": "en"}, headers=a).json()["style_id"]
    path = f"/v3/style_rules/{style_id}"
    assert client.get("/v3/style_rules", headers=b).json() == {"style_rules": []}
    assert client.get(path, headers=b).status_code == 404
    assert client.request("PATCH", path, json={"name": "x"}, headers=b).status_code == 404
    assert client.request("DELETE", path, headers=b).status_code == 404
    assert client.post(f"{path}/custom_instructions", json={"label": "l", "prompt": "p"}, headers=b).status_code == 404
    body = {"text": ["x"], "source_lang": "DE", "target_lang": "EN-US", "style_id": style_id}
    assert client.post("/v2/translate", json=body, headers=b).status_code == 404
    assert client.post("/v2/translate", json=body, headers=a).status_code == 200
    assert client.get(path, headers=a).json()["version"] == 1


def _serve_args(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


def test_serve_flags_give_each_account_its_memories() -> None:
    args = _serve_args(
        "--auth-key", "p", "--free-auth-key", "f",
        "--translation-memory", "ui=a.tmx", "--translation-memory", "docs = b.po",
        "--free-translation-memory", "x=c.po",
    )  # fmt: skip
    paid, free = cli.accounts_from(args, {})
    assert paid.translation_memories == (MemorySpec("ui", Path("a.tmx")), MemorySpec("docs", Path("b.po")))
    assert free.translation_memories == (MemorySpec("x", Path("c.po")),)
    with pytest.raises(UsageError, match="paid-tier"):
        cli.accounts_from(_serve_args("--free-auth-key", "f", "--translation-memory", "ui=a.tmx"), {})
    with pytest.raises(SystemExit):
        _serve_args("--translation-memory", "no-equals-sign")
