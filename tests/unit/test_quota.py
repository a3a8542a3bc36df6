"""What is left of the account's and the key's characters, and when a run must not start."""

from __future__ import annotations

from pipeline.client.responses import parse_usage
from pipeline.run.quota import UNLIMITED, Allowance, allowance, shortfall


def test_the_tighter_of_account_and_key_is_what_is_left() -> None:
    both = Allowance(account_count=100, account_limit=1_000, key_count=10, key_limit=50)
    assert both.left == 40 and both.holder == "key"
    assert Allowance(account_count=990, account_limit=1_000, key_count=10, key_limit=50).holder == "account"
    assert Allowance(account_count=5).left is None  # no limit anywhere
    assert Allowance(account_count=2_000, account_limit=1_000).left == 0  # over the limit: nothing, not negative


def test_key_figures_are_read_as_the_service_reports_them() -> None:
    local = allowance(
        parse_usage(
            {"character_count": 7, "character_limit": None, "api_key_character_count": 3, "api_key_character_limit": 20}
        )
    )
    assert local == Allowance(account_count=7, account_limit=None, key_count=3, key_limit=20) and local.left == 17
    # The hosted service reports "no limit set" as 10^12, and free keys have no key-level figures.
    hosted = allowance(
        parse_usage(
            {
                "character_count": 3_000,
                "character_limit": UNLIMITED,
                "api_key_character_count": 3_000,
                "api_key_character_limit": UNLIMITED,
            }
        )
    )
    assert hosted.left is None and hosted.account_limit is None and hosted.key_limit is None
    free = allowance(parse_usage({"character_count": 100, "character_limit": 500_000}))
    assert free.left == 499_900 and free.key_count is None and free.holder == "account"


def test_a_run_the_allowance_cannot_cover_is_refused_with_both_figures_and_the_way_out() -> None:
    key = Allowance(account_count=0, key_count=0, key_limit=40)
    message = shortfall(key, needed=200, budget=None)
    assert message is not None
    assert "the key has 40 characters left" in message and "needs 200" in message
    assert "--max-characters 40" in message
    assert shortfall(key, needed=40, budget=None) is None
    assert shortfall(key, needed=200, budget=40) is None  # a deliberate partial run
    assert "needs 41 (budget; 200 for everything)" in (shortfall(key, needed=200, budget=41) or "")
    assert shortfall(Allowance(account_count=0), needed=10**9, budget=None) is None
    spent = shortfall(Allowance(account_count=10, account_limit=10), needed=1, budget=None)
    assert spent is not None and "the account has 0 characters left" in spent and "--max-characters" not in spent
