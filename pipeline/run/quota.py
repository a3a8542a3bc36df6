"""Spend only what the account has: the usage read before a run's first translate request.

``GET /v2/usage`` gives the account's ``character_count`` and ``character_limit`` and, for a key
with its own limit, ``api_key_character_count`` and ``api_key_character_limit`` (the spec does
not show the full shape; these are the names the service uses, and ``pipeline serve`` serves
them the same way). A limit that is null, absent, or the service's "no limit set" value
(10^12) is no limit. What is left is the smaller of what the account and the key have left.

The run compares that with what it will really bill (after the cache and deduplication; capped
by its own ``max_characters``) and, when it cannot be covered, stops before sending anything:
a partial run is a decision for the user (``--max-characters``), not something to discover at
the 456 halfway through.

The reads a run makes before its first translate request live here too: the usage
(:func:`read_usage`, judged by :func:`check_quota`) and the target languages the service offers
(:func:`offered_targets`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

from pipeline.errors import AuthenticationError, NotFoundError, ServiceError, TransportError

if TYPE_CHECKING:  # the client (httpx) is loaded only when a request is really sent
    from pipeline.client.aio import AsyncClient

    #: What the service reports as the limit when none is set.
    from pipeline.client.api_data import Usage

#: What the service reports as the limit when none is set.
UNLIMITED = 10**12


class Allowance(NamedTuple):
    """Characters used and allowed this period, for the account and for the calling key."""

    account_count: int
    account_limit: int | None = None
    key_count: int | None = None
    key_limit: int | None = None

    @property
    def left(self) -> int | None:
        """Characters that may still be billed (the tighter of account and key), None when unlimited."""
        rooms = self._rooms()
        return max(0, min(rooms.values())) if rooms else None

    @property
    def holder(self) -> str:
        """Whose limit binds: ``"key"`` or ``"account"``."""
        rooms = self._rooms()
        return "key" if "key" in rooms and rooms["key"] <= rooms.get("account", rooms["key"]) else "account"

    def _rooms(self) -> dict[str, int]:
        rooms = {}
        if self.account_limit is not None:
            rooms["account"] = self.account_limit - self.account_count
        if self.key_limit is not None:
            rooms["key"] = self.key_limit - (self.key_count or 0)
        return rooms

    def to_json(self) -> dict[str, int | None]:
        """The figures as the report records them."""
        return {
            "account_count": self.account_count,
            "account_limit": self.account_limit,
            "key_count": self.key_count,
            "key_limit": self.key_limit,
            "left": self.left,
        }


def allowance(usage: Usage) -> Allowance:
    """The allowance in a :class:`pipeline.client.Usage` (key-level figures are among its ``extra``)."""
    extra = usage.extra
    return Allowance(
        account_count=usage.character_count,
        account_limit=_limit(usage.character_limit),
        key_count=_count(extra.get("api_key_character_count")),
        key_limit=_limit(extra.get("api_key_character_limit")),
    )


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def _limit(value: object) -> int | None:
    count = _count(value)
    return None if count is None or count >= UNLIMITED else count


def shortfall(allowed: Allowance, needed: int, budget: int | None, earlier: int = 0) -> str | None:
    """Why the run must not start (or go on), or None when what is left covers it.

    ``needed`` is what the run will bill; with a ``budget`` the run bills at most that, so a
    budget within what is left is a deliberate partial run and goes ahead. ``earlier``: what the
    run already billed for what it read before (a corpus read in windows, a large catalog in parts).
    """
    left = allowed.left
    if left is None:
        return None
    planned = needed if budget is None else min(needed, budget)
    if planned <= left:
        return None
    offer = (
        f"pass --max-characters {left} to translate part of it now"
        if left > 0
        else "nothing can be translated until the usage period resets or the limit is raised"
    )
    who = "the key" if allowed.holder == "key" else "the account"
    sent = (
        f"nothing more was sent after the {earlier:,} characters billed earlier in the run"
        if earlier
        else "nothing was sent"
    )
    return (
        f"{who} has {left:,} characters left this period and this run needs {planned:,}"
        f"{'' if planned == needed else f' (budget; {needed:,} for everything)'}: {sent}; {offer}"
    )


@dataclass
class UsageRecord:
    """The account's usage read around a run (``GET /v2/usage``), and why it is missing when it is."""

    before: Allowance | None = None
    after: Allowance | None = None
    note: str | None = None  # e.g. the service gives no limit, or the usage call failed


async def read_usage(client: AsyncClient, url: str | None = None) -> tuple[Allowance | None, str | None]:
    """What the account and the key have used and may use this period, or (None, why not).

    A refused key or an unreachable service is raised: nothing can be translated then, and nothing
    is written (:func:`unusable` says why).
    """
    try:
        return allowance(await client.usage()), None
    except (AuthenticationError, TransportError):
        raise
    except ServiceError as exc:
        why = unusable(exc, url)
        return None, f"the account's usage could not be read ({why}); the run goes on without a quota check"


def unusable(exc: Exception, url: str | None) -> str:
    """Why the service at ``url`` cannot be used, from the error of the first read (usage, languages)."""
    message = str(exc)
    if isinstance(exc, NotFoundError):
        path = (url or "").rstrip("/").rsplit("/", 1)[-1].lower()
        hint = (
            f"the service URL ends in /{path}, which the client adds itself: use the URL without it"
            if path in ("v1", "v2", "v3")
            else "is the URL the service's base URL (the one before /v2/...)?"
        )
        message = f"{message} at {url}: {hint}"
    return message


def check_quota(
    read: tuple[Allowance | None, str | None], needed: int, budget: int | None, earlier: int = 0
) -> tuple[UsageRecord, str | None]:
    """Judge the usage ``read`` (:func:`read_usage`) before the first request: why the run must stop (None: it goes on).

    ``needed`` is what the run will bill (after the cache and deduplication); a ``budget`` caps it.
    No limit, or no answer, and the run goes on: the record's note says so. ``earlier`` is what
    the run already billed for catalogs read before (a corpus read in windows).
    """
    before, note = read
    record = UsageRecord(before=before, note=note)
    if before is None:
        return record, None
    if before.left is None:
        record.note = "the service gives no character limit for this account or key: no quota check"
        return record, None
    return record, shortfall(before, needed, budget, earlier)


class Targets(NamedTuple):
    """The target languages the service offers (upper-case codes), those of them it bills nothing, and a hash
    of the offered ones for the run state."""

    offered: frozenset[str]
    free: frozenset[str]  # beta languages: "not billed during beta" (the service's billing rules)
    hash: str


async def offered_targets(client: AsyncClient) -> Targets:
    """The target codes the service offers, and which of them are in beta (billed nothing).

    A catalog settled because its language is not offered is looked at again once the service's
    list changes.
    """
    languages = await client.languages("translate_text", include=("beta",))
    targets = [lang for lang in languages if lang.usable_as_target]
    offered = frozenset(lang.code.upper() for lang in targets)
    free = frozenset(lang.code.upper() for lang in targets if lang.status == "beta")
    return Targets(offered, free, languages_hash(offered))


def languages_hash(offered: frozenset[str]) -> str:
    """What names a list of target codes in the run state: a catalog settled for a language the list
    leaves out is read again once the list changes."""
    return hashlib.sha256(" ".join(sorted(offered)).encode()).hexdigest()[:16]
