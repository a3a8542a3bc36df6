"""Accounts, keys and metering in the SQLite store (memory and file)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pipeline.service.config import AccountSpec
from pipeline.service.store.accounts import AccountStore, ActiveKeyLimitError, Credential, DeveloperKey
from pipeline.service.store.database import Database
from pipeline.service.store.metering import Meter, period_bounds, period_of

NOW = 1_780_000_000_000


def credential(store: AccountStore, secret: str) -> Credential:
    """Who ``secret`` authenticates as (the test fails if nobody)."""
    found = store.authenticate(secret)
    assert found is not None, f"{secret} is not a key"
    return found


def key_of(store: AccountStore, secret: str) -> DeveloperKey:
    """The developer key ``secret`` authenticates as (the test fails if unknown or an admin key)."""
    key = credential(store, secret).key
    assert key is not None, f"{secret} is an admin key"
    return key


def test_registration_is_found_again_after_reopen(tmp_path: Path) -> None:
    db = Database(tmp_path)
    [account] = AccountStore(db).register([AccountSpec("paid", ("k1",), ("a1",))], NOW)
    key, secret = AccountStore(db).create_key(account.account_id, "extra", NOW)
    db.close()

    db = Database(tmp_path)
    store = AccountStore(db)
    [again] = store.register([AccountSpec("paid", ("k1", "k2"), ("a2",))], NOW + 1)
    assert again.account_id == account.account_id
    assert key is not None
    assert key_of(store, secret).key_id == key.key_id
    assert credential(store, "k2").account.account_id == account.account_id
    assert store.authenticate("a1") is None  # admin keys follow the configuration
    assert credential(store, "a2").is_admin
    assert [k.label for k in store.list_keys(account.account_id)] == ["Configured key", "extra", "Configured key"]
    db.close()


def test_a_key_dropped_from_the_configuration_is_deactivated_but_api_keys_stay(tmp_path: Path) -> None:
    db = Database(tmp_path)
    store = AccountStore(db)
    [account] = store.register([AccountSpec("paid", ("k1", "k2"))], NOW)
    made, secret = store.create_key(account.account_id, "made", NOW)
    store.register([AccountSpec("paid", ("k1",))], NOW + 5)
    dropped = store.authenticate("k2")
    assert dropped is not None and dropped.key is not None and dropped.key.deactivated_ms == NOW + 5
    assert not key_of(store, "k1").is_deactivated
    assert not key_of(store, secret).is_deactivated
    store.register([AccountSpec("paid", ("k1", "k2"))], NOW + 9)  # configured again: revoked for good
    assert key_of(store, "k2").deactivated_ms == NOW + 5
    db.close()


def test_a_key_table_from_before_revocation_counts_its_configured_keys_by_label(tmp_path: Path) -> None:
    db = Database(tmp_path)
    store = AccountStore(db)
    [account] = store.register([AccountSpec("paid", ("k1", "k2"))], NOW)
    store.create_key(account.account_id, "made", NOW)
    with db.transaction() as conn:
        conn.execute("ALTER TABLE developer_keys DROP COLUMN configured")
    db.close()

    db = Database(tmp_path)
    store = AccountStore(db)
    store.register([AccountSpec("paid", ("k1",))], NOW + 5)
    states = {k.label: k.is_deactivated for k in store.list_keys(account.account_id) if k.label != "Configured key"}
    assert states == {"made": False}
    assert key_of(store, "k2").is_deactivated and not key_of(store, "k1").is_deactivated
    db.close()


def test_contradicting_configuration_is_refused() -> None:
    store = AccountStore(Database(None))
    store.register([AccountSpec("paid", ("k1",)), AccountSpec("free", ("f1",))], NOW)
    with pytest.raises(ValueError, match="different stored accounts"):
        store.register([AccountSpec("paid", ("k1", "f1"))], NOW)
    with pytest.raises(ValueError, match="two accounts"):
        store.register([AccountSpec("paid", ("x",)), AccountSpec("free", ("x",))], NOW)
    with pytest.raises(ValueError):
        AccountSpec("paid", ("k", "k"))
    with pytest.raises(ValueError):
        AccountSpec("gold", ("k",))  # type: ignore[arg-type]  # a tier the type refuses: the check at run time


def test_active_key_limit_and_deactivation() -> None:
    store = AccountStore(Database(None))
    [account] = store.register([AccountSpec("paid", ())], NOW)
    keys = [store.create_key(account.account_id, f"k{i}", NOW)[0] for i in range(25)]
    with pytest.raises(ActiveKeyLimitError):
        store.create_key(account.account_id, "one too many", NOW)
    first = store.deactivate(account.account_id, keys[0].key_id, NOW + 5)
    assert first is not None and first.deactivated_ms == NOW + 5
    again = store.deactivate(account.account_id, keys[0].key_id, NOW + 9)
    assert again is not None and again.deactivated_ms == NOW + 5
    assert store.create_key(account.account_id, "room again", NOW)[0].label == "room again"
    assert store.deactivate("other-account", keys[1].key_id, NOW) is None


def test_limits_keep_speech_unless_given() -> None:
    store = AccountStore(Database(None))
    [account] = store.register([AccountSpec("paid", ())], NOW)
    made, _ = store.create_key(account.account_id, "k", NOW)
    limited = store.set_limits(account.account_id, made.key_id, 10, 500, set_speech=True)
    assert limited is not None
    key = store.set_limits(account.account_id, limited.key_id, None, None, set_speech=False)
    assert key is not None and (key.character_limit, key.speech_limit_ms) == (None, 500)


def test_periods_are_utc_calendar_months() -> None:
    moment = dt.datetime(2026, 12, 31, 23, 59, tzinfo=dt.UTC)
    assert period_of(moment) == "2026-12"
    start, end = period_bounds(moment)
    assert (start.isoformat(), end.isoformat()) == ("2026-12-01T00:00:00+00:00", "2027-01-01T00:00:00+00:00")


def test_meter_limits_refunds_and_totals() -> None:
    meter = Meter(Database(None))
    assert meter.charge("k1", "acc", "2026-05", "translation", 8, limit=10)
    assert not meter.charge("k1", "acc", "2026-05", "write", 3, limit=10)
    assert meter.charge("k1", "acc", "2026-05", "write", 2, limit=10)
    assert not meter.charge("k1", "acc", "2026-05", "translation", 1, limit=10)
    assert meter.charge("k1", "acc", "2026-05", "translation", 0, limit=0)
    assert meter.charge("k1", "acc", "2026-06", "translation", 10, limit=10)
    assert meter.charge("k2", "acc", "2026-05", "translation", 5, limit=None)
    meter.refund("k2", "2026-05", "translation", 2)
    assert meter.key_total("k1", "2026-05") == 10


def test_meter_by_kind_gives_the_key_and_the_account() -> None:
    meter = Meter(Database(None))
    meter.charge("k1", "acc", "2026-05", "translation", 8, limit=None)
    meter.charge("k1", "acc", "2026-05", "write", 2, limit=None)
    meter.charge("k2", "acc", "2026-05", "document", 5, limit=None)
    meter.charge("k2", "acc", "2026-06", "write", 50, limit=None)
    meter.charge("k3", "other", "2026-05", "translation", 100, limit=None)
    assert meter.by_kind("k1", "acc", "2026-05") == {"translation": (8, 8), "write": (2, 2), "document": (0, 5)}
    assert meter.by_kind("k9", "acc", "2026-07") == {"translation": (0, 0), "write": (0, 0), "document": (0, 0)}


def test_tag_report_by_period_and_day() -> None:
    meter = Meter(Database(None))
    meter.record_tag("acc", "b", "2026-05-01", 5)
    meter.record_tag("acc", "a", "2026-05-02", 7)
    meter.record_tag("acc", "a", "2026-05-03", 1)
    meter.record_tag("other", "a", "2026-05-03", 100)
    totals = meter.tag_report("acc", "2026-05-01", "2026-05-31", False, 0, 10)
    assert [(t.custom_tag, t.translation_chars) for t in totals] == [("a", 8), ("b", 5)]
    days = meter.tag_report("acc", "2026-05-02", "2026-05-03", True, 0, 10)
    assert [(t.custom_tag, t.day, t.translation_chars) for t in days] == [
        ("a", "2026-05-02", 7),
        ("a", "2026-05-03", 1),
    ]
    assert len(meter.tag_report("acc", "2026-05-01", "2026-05-31", True, 1, 1)) == 1
