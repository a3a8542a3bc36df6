"""Secrets stay out of every message, and redaction blanks nothing else.

A shared cache URL's password pasted without percent-encoding (base64 and ``openssl rand``
passwords hold ``/``) moves the URL's parts around: whatever stands between ``//`` and the last
``@`` is the user's and password, however a parser reads the rest. A one- or two-letter user name
or key is starred only where it stands as a word: "Connection refused" and "unknown
authentication key" stay readable.
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest

from pipeline.cli import main
from pipeline.errors import redact, redact_url
from tests.sample_project import copy_sample_project

TAIL = "K9vSecretTail"
#: Passwords with "/" written as they were pasted: (URL, the pieces of the password that must never show).
PASTED = [
    (f"redis://:8472/{TAIL}@127.0.0.1:{{port}}/0", ("8472", TAIL)),
    (f"redis://:abcd/{TAIL}@127.0.0.1:{{port}}/0", ("abcd", TAIL)),
    (f"redis://worker:ab+c/d=={TAIL}@127.0.0.1:{{port}}/0", ("ab+c", "d==", TAIL)),
    (f"redis://:pw?x=1#{TAIL}@127.0.0.1:{{port}}/0", ("pw?x", TAIL)),
    (f"rediss://user:{TAIL}@@127.0.0.1:{{port}}/0", (TAIL,)),
    (f"unix://:a/b/{TAIL}@/tmp/no-such-redis.sock?db=0", (TAIL,)),
]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        result: int = probe.getsockname()[1]
        return result


def _outputs(root: Path, capsys: pytest.CaptureFixture[str]) -> str:
    captured = capsys.readouterr()
    reports = [p.read_text(encoding="utf-8") for p in (root / "report").glob("report.*")] if root.exists() else []
    return captured.out + captured.err + "".join(reports)


@pytest.mark.parametrize(("url", "pieces"), PASTED)
def test_a_pasted_password_never_shows_in_translate_or_cache_stats(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    url: str,
    pieces: tuple[str, ...],
) -> None:
    url = url.format(port=_closed_port())
    root = copy_sample_project(tmp_path, "embedded")
    config = root / "pipeline.toml"
    monkeypatch.setenv("PIPELINE_CACHE_URL", url)
    monkeypatch.chdir(root)
    assert main(["translate", "--config", str(config)]) == 0
    shown = _outputs(root, capsys)
    assert "shared translation cache" in shown  # the warning is there, without the secret
    main(["cache", "stats", "--config", str(config)])
    main(["cache", "stats", "--json", "--config", str(config)])
    shown += _outputs(root, capsys)
    for piece in pieces:
        assert piece not in shown, piece


def test_a_one_letter_user_is_starred_as_a_word_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    root = copy_sample_project(tmp_path, "embedded")
    monkeypatch.setenv("PIPELINE_CACHE_URL", f"redis://u:p@127.0.0.1:{_closed_port()}/0")
    monkeypatch.chdir(root)
    main(["cache", "stats", "--json", "--config", str(root / "pipeline.toml")])
    shared = json.loads(capsys.readouterr().out)["shared"]
    assert "refused" in json.dumps(shared) and "***" not in json.dumps(shared), shared


@pytest.mark.parametrize("secret", ["k", "n", "ey", "un"])
def test_a_short_secret_is_starred_where_it_stands_alone_never_inside_words(secret: str) -> None:
    text = f"unknown authentication key; you sent {secret}, and Basic {secret}:x"
    assert redact(text, [secret]) == "unknown authentication key; you sent ***, and Basic ***:x"


def test_a_long_secret_is_starred_wherever_it_is() -> None:
    assert redact("token=s3cr3t-v4lue-long&x", ["s3cr3t-v4lue-long"]) == "token=***&x"
    assert redact("glueds3cr3t-v4lue-longglued", ["s3cr3t-v4lue-long"]) == "glued***glued"


@pytest.mark.parametrize(("url", "pieces"), PASTED)
def test_a_url_is_shown_without_what_stands_before_its_last_at(url: str, pieces: tuple[str, ...]) -> None:
    shown = redact_url(url.format(port=6379))
    assert not any(piece in shown for piece in pieces), shown


@pytest.mark.parametrize("key", ["e", "a", "on"])
def test_a_one_letter_key_leaves_the_words_of_an_error_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], key: str
) -> None:
    root = copy_sample_project(tmp_path, f"http://127.0.0.1:{_closed_port()}")
    config = root / "pipeline.toml"
    config.write_text(config.read_text(encoding="utf-8").replace("[service]\n", "[service]\nmax_attempts = 1\n"))
    monkeypatch.setenv("PIPELINE_AUTH_KEY", key)
    monkeypatch.chdir(root)
    code = main(["translate", "--config", str(config)])
    shown = _outputs(root, capsys)
    assert code == 4 and "All connection attempts failed" in shown and "***" not in shown, shown
