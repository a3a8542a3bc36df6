"""Authentication: ``Authorization: Service-Auth-Key <key>`` and who may call what.

Every refusal is 403 with a message naming the reason (never the key): missing or malformed
header, unknown key, deactivated key, legacy authentication (``auth_key`` as query or body
parameter, refused on both tiers since the paid tier's brownout ended), an admin key on a
non-admin endpoint, a developer key on an admin endpoint, or a free-tier account on a
paid-only area (Write, style rules, administration).
"""

import enum
from collections.abc import Awaitable, Callable
from typing import NamedTuple

from starlette.requests import Request
from starlette.responses import Response

from pipeline.protocol import AUTH_HEADER, AUTH_SCHEME
from pipeline.service.http.params import LEGACY_AUTH_MESSAGE, LEGACY_AUTH_PARAM
from pipeline.service.http.responses import ApiError
from pipeline.service.state import service_of
from pipeline.service.store.accounts import Account, DeveloperKey


class Access(enum.Enum):
    """Who may call an endpoint."""

    DEVELOPER = "developer key, any tier"
    PAID_DEVELOPER = "developer key, paid tier"
    ADMIN = "admin key, paid tier"


class Caller(NamedTuple):
    """The authenticated caller: its account and, unless it used an admin key, its developer key."""

    account: Account
    key: DeveloperKey | None


def _refuse(message: str) -> ApiError:
    return ApiError(403, message)


def authenticate(request: Request, access: Access) -> Caller:
    """The caller of ``request`` if it may use an endpoint of ``access``; 403 otherwise."""
    if LEGACY_AUTH_PARAM in request.query_params:
        raise _refuse(LEGACY_AUTH_MESSAGE)
    header = request.headers.get(AUTH_HEADER)
    if header is None:
        raise _refuse(f"missing {AUTH_HEADER} header; send '{AUTH_HEADER}: {AUTH_SCHEME} <key>'")
    scheme, _, secret = header.strip().partition(" ")
    secret = secret.strip()
    if scheme.lower() != AUTH_SCHEME.lower() or not secret:
        raise _refuse(f"malformed {AUTH_HEADER} header; expected '{AUTH_SCHEME} <key>'")
    credential = service_of(request).accounts.authenticate(secret)
    if credential is None:
        raise _refuse("unknown authentication key")
    account = credential.account
    if access is Access.ADMIN:
        if account.tier != "paid":
            raise _refuse("the admin interface is available to paid-tier accounts only")
        if not credential.is_admin:
            raise _refuse("this endpoint needs an admin key; developer keys cannot administer")
        return Caller(account, None)
    if credential.is_admin:
        raise _refuse("admin keys are valid for the admin endpoints only; use a developer key")
    assert credential.key is not None
    if credential.key.is_deactivated:
        raise _refuse("this key has been deactivated")
    if access is Access.PAID_DEVELOPER and account.tier != "paid":
        raise _refuse("this endpoint is available to paid-tier accounts only")
    return Caller(account, credential.key)


Handler = Callable[[Request, Caller], Awaitable[Response]]


def guarded(access: Access) -> Callable[[Handler], Callable[[Request], Awaitable[Response]]]:
    """Decorate ``handler(request, caller)`` into a Starlette endpoint that authenticates first."""

    def wrap(handler: Handler) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            return await handler(request, authenticate(request, access))

        endpoint.__name__ = handler.__name__
        endpoint.__doc__ = handler.__doc__
        return endpoint

    return wrap
