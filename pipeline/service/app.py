"""Assembly of the service app: state, routes, middleware and error handlers.

The app needs no ASGI lifespan (``httpx.ASGITransport`` does not run one): the store is opened
and the configured accounts registered right here in the factory. Status codes chosen where the
spec is silent are listed in the docstrings of ``auth``, ``translate``, ``admin``, ``analytics``
and ``responses``; malformed requests are 400, bodies of the wrong media type 415.
"""

from __future__ import annotations

from types import ModuleType

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute, Mount, Router

from pipeline.service.api import (
    admin,
    documents,
    glossaries,
    glossaries_v2,
    languages,
    languages_v2,
    memories,
    style_rules,
    translate,
    usage,
    write,
)
from pipeline.service.config import ServiceConfig
from pipeline.service.documents.jobs import DocumentJobs
from pipeline.service.engine.pseudo import PseudoEngine
from pipeline.service.http.responses import (
    ApiError,
    handle_api_error,
    handle_http_exception,
    handle_unexpected,
)
from pipeline.service.state import ServiceState, system_clock
from pipeline.service.store.accounts import AccountStore
from pipeline.service.store.database import Database
from pipeline.service.store.glossaries import GlossaryStore
from pipeline.service.store.memories import MemoryStore
from pipeline.service.store.metering import Meter
from pipeline.service.store.resources import Resources
from pipeline.service.store.styles import StyleStore
from pipeline.service.testing.faults import FaultBook, FaultMiddleware

#: The route groups (``api`` modules) by the version prefix they are mounted under.
V2_GROUPS: tuple[ModuleType, ...] = (translate, usage, write, admin, glossaries_v2, languages_v2, documents)
V3_GROUPS: tuple[ModuleType, ...] = (languages, glossaries, style_rules, memories)


def _mount(prefix: str, groups: tuple[ModuleType, ...]) -> Mount:
    # Without redirect_slashes "/v2/translate/" is an unknown path (404), not a redirect.
    router = Router([route for group in groups for route in group.routes], redirect_slashes=False)
    return Mount(prefix, app=router)


def routes() -> list[BaseRoute]:
    """Every endpoint of the service: the route groups mounted under ``/v2`` and ``/v3``."""
    return [_mount("/v2", V2_GROUPS), _mount("/v3", V3_GROUPS)]


def build_state(config: ServiceConfig) -> ServiceState:
    """Open the store, register the configured accounts, pick the engine."""
    db = Database(config.data_dir)
    try:
        accounts = AccountStore(db)
        meter = Meter(db)
        clock = config.clock or system_clock
        registered = accounts.register(config.accounts, int(clock().timestamp() * 1000))
        memory_store = MemoryStore()
        for account, spec in zip(registered, config.accounts, strict=True):
            memory_store.load(account.account_id, spec)
        resources = Resources(GlossaryStore(db), StyleStore(db), memory_store)
    except BaseException:
        db.close()
        raise
    return ServiceState(
        config=config,
        db=db,
        accounts=accounts,
        meter=meter,
        engine=config.engine or PseudoEngine(),
        lookups=resources,
        faults=FaultBook() if config.test_faults else None,
        clock=clock,
    )


def create_app(config: ServiceConfig) -> Starlette:
    """The service as an ASGI app, usable at once (no lifespan needed)."""
    state = build_state(config)
    middleware = [Middleware(FaultMiddleware, book=state.faults)] if state.faults is not None else []
    app = Starlette(
        routes=routes(),
        middleware=middleware,
        exception_handlers={
            ApiError: handle_api_error,
            HTTPException: handle_http_exception,
            Exception: handle_unexpected,
        },
    )
    # "/v2/translate/" is an unknown path (404), not a redirect to "/v2/translate".
    app.router.redirect_slashes = False
    app.state.service = state
    # Resumes the jobs a previous run left unfinished and drops the expired ones (with --data-dir).
    app.state.documents = DocumentJobs(
        state.db,
        state.engine,
        state.now_ms,
        lookups=state.lookups,
        retention_hours=config.document_retention_hours,
    )
    return app
