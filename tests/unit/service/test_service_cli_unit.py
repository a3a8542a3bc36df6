"""``pipeline serve`` command line: registration, keys from flags and environment, light import."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from pipeline.cli import handler
from pipeline.errors import UsageError
from pipeline.service import cli, serve


def parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["serve", *argv])


def test_defaults_and_func() -> None:
    args = parse()
    assert (args.host, args.port, args.data_dir, args.test_faults) == ("127.0.0.1", 8000, None, False)
    assert handler(args.handler) is serve.run_serve  # loaded when the command runs


def test_keys_from_flags_and_environment() -> None:
    args = parse("--auth-key", "a1", "--auth-key", "a2", "--admin-key", "m1", "--free-auth-key", "f1", "--port", "0")
    environ = {cli.ENV_AUTH_KEYS: " a2, a3 ,", cli.ENV_FREE_AUTH_KEYS: "f2"}
    paid, free = cli.accounts_from(args, environ)
    assert (paid.tier, paid.auth_keys, paid.admin_keys) == ("paid", ("a1", "a2", "a3"), ("m1",))
    assert (free.tier, free.auth_keys, free.admin_keys) == ("free", ("f1", "f2"), ())


def test_environment_alone_is_enough() -> None:
    [account] = cli.accounts_from(parse(), {cli.ENV_ADMIN_KEYS: "m"})
    assert account.admin_keys == ("m",) and account.auth_keys == ()


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        ((), "no keys"),
        (("--auth-key", "k", "--admin-key", "k"), "both a developer key and an admin key"),
        (("--auth-key", "k", "--free-auth-key", "k"), "both the paid-tier and the free-tier"),
    ],
)
def test_bad_key_sets_are_usage_errors(argv: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError, match=message) as caught:
        cli.accounts_from(parse(*argv), {})
    assert "'k'" not in str(caught.value)


def test_a_second_paid_account_from_flags_and_environment() -> None:
    args = parse("--auth-key", "a", "--other-paid-auth-key", "o1")
    paid, other = cli.accounts_from(args, {cli.ENV_OTHER_PAID_AUTH_KEYS: "o2,o1"})
    assert (paid.tier, paid.auth_keys) == ("paid", ("a",))
    assert (other.tier, other.auth_keys, other.admin_keys) == ("paid", ("o1", "o2"), ())
    [alone] = cli.accounts_from(parse(), {cli.ENV_OTHER_PAID_AUTH_KEYS: "o"})
    assert (alone.tier, alone.auth_keys) == ("paid", ("o",))


@pytest.mark.parametrize("owner", ["--auth-key", "--admin-key", "--free-auth-key"])
def test_a_key_of_the_second_paid_account_belongs_to_it_alone(owner: str) -> None:
    with pytest.raises(UsageError, match="second paid-tier account"):
        cli.accounts_from(parse(owner, "k", "--other-paid-auth-key", "k"), {})


def test_document_retention_hours(capsys: pytest.CaptureFixture[str]) -> None:
    assert parse().document_retention_hours == 24
    assert parse("--document-retention-hours", "0.5").document_retention_hours == 0.5
    assert parse("--document-retention-hours", "876000").document_retention_hours == 876_000
    for bad in ("0", "-1", "876001", "inf", "nan", "a day"):
        with pytest.raises(SystemExit):
            parse("--document-retention-hours", bad)
    assert "hours" in capsys.readouterr().err


def test_port_must_be_valid(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        parse("--port", "70000")
    assert "port must be between 0 and 65535" in capsys.readouterr().err


def test_importing_the_cli_is_light() -> None:
    code = (
        "import sys, pipeline.service.cli, pipeline.service; "
        "heavy = [m for m in ('starlette', 'uvicorn', 'httpx', 'py3langid', 'numpy', 'sqlite3') if m in sys.modules]; "
        "print(heavy)"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "[]"
