"""The live objects of one app instance, reachable from every endpoint as ``request.app.state.service``."""

import datetime as dt
from collections.abc import Callable
from typing import NamedTuple

from starlette.requests import Request

from pipeline.service.config import ServiceConfig
from pipeline.service.engine.base import Engine
from pipeline.service.store.accounts import AccountStore
from pipeline.service.store.database import Database
from pipeline.service.store.metering import Meter
from pipeline.service.store.resources import Lookups, Resources


def system_clock() -> dt.datetime:
    """Now, in UTC."""
    return dt.datetime.now(dt.UTC)


class ServiceState(NamedTuple):
    """Store, engine and clock of one app."""

    config: ServiceConfig
    db: Database
    accounts: AccountStore
    meter: Meter
    engine: Engine
    lookups: Lookups
    clock: Callable[[], dt.datetime] = system_clock

    def now(self) -> dt.datetime:
        """Now, in UTC, from the configured clock."""
        return self.clock()

    def now_ms(self) -> int:
        """Now as epoch milliseconds."""
        return int(self.clock().timestamp() * 1000)

    def close(self) -> None:
        """Release the database."""
        self.db.close()


def service_of(request: Request) -> ServiceState:
    """The state of the app serving ``request``."""
    state: ServiceState = request.app.state.service
    return state


def resources_of(request: Request) -> Resources:
    """The resource stores of the app serving ``request``."""
    lookups = service_of(request).lookups
    assert isinstance(lookups, Resources)
    return lookups
