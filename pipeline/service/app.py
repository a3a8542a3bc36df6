"""Assembly of the service app: routes, middleware, error handlers, and its open/close life.

:func:`create_app` builds a :class:`ServiceApp` and opens nothing. :meth:`ServiceApp.open` opens
the database, registers the configured accounts, reads the translation memories and, with a data
directory, opens the glossary and style stores and resumes the document jobs (an in-memory app
opens each at its first use: its first glossary, style rule list or document request);
:meth:`ServiceApp.aclose` stops the document worker and closes the database. Both
are idempotent, and the ASGI lifespan calls them (any ASGI server, ``pipeline serve``, and
:class:`~pipeline.service.embedded.EmbeddedTransport`, the pipeline's in-process mode, which drives
the lifespan itself); ``async with app.running()`` does the same for a caller that runs no
lifespan. A request to an app that is not open is answered 503.

Status codes chosen where the spec is silent are listed in the docstrings of ``http.auth``,
``api.translate``, ``api.admin`` and ``http.responses``; malformed requests are 400, bodies of the
wrong media type 415.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib
import sqlite3
import uuid
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from starlette.applications import Starlette
from starlette.datastructures import URLPath
from starlette.exceptions import HTTPException
from starlette.routing import BaseRoute, Match, Mount, Route, Router
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.service.config import ServiceConfig
from pipeline.service.engine.base import Engine
from pipeline.service.engine.instructions import InstructionFollowingEngine
from pipeline.service.engine.pseudo import PseudoEngine
from pipeline.service.http.responses import (
    ApiError,
    error_response,
    handle_api_error,
    handle_http_exception,
    handle_unexpected,
)
from pipeline.service.state import ServiceState, system_clock
from pipeline.service.store.accounts import AccountStore
from pipeline.service.store.database import Database
from pipeline.service.store.memories import MemoryStore
from pipeline.service.store.metering import Meter
from pipeline.service.store.resources import Resources

if TYPE_CHECKING:  # loaded by the app when it needs them: see ServiceApp.document_jobs and fault_book
    from pipeline.service.documents.jobs import DocumentJobs
    from pipeline.service.testing.faults import FaultBook

#: The route groups (``api`` modules) by the version prefix they are mounted under, each with the
#: first segments of its paths (one group per segment and version). A group's module is loaded at
#: the first request under its paths (:class:`RouteGroup`): the pipeline's embedded service answers
#: its translate and usage requests without loading the documents, write, admin or resource endpoints.
V2_GROUPS: dict[str, tuple[str, ...]] = {
    "translate": ("translate",),
    "usage": ("usage",),
    "write": ("write",),
    "admin": ("admin",),
    "glossaries_v2": ("glossaries",),
    "languages_v2": ("languages", "glossary-language-pairs"),
    "documents": ("document",),
}
V3_GROUPS: dict[str, tuple[str, ...]] = {
    "languages": ("languages",),
    "glossaries": ("glossaries",),
    "style_rules": ("style_rules",),
    "memories": ("translation_memories",),
}


def group_routes(module: str) -> list[BaseRoute]:
    """The routes of the route group ``module`` (of :mod:`pipeline.service.api`), its module loaded now."""
    routes: list[BaseRoute] = importlib.import_module(f"pipeline.service.api.{module}").routes
    return routes


class _ByMethod:
    """The handlers of one path by method, as one ASGI app."""

    def __init__(self, apps: dict[str, ASGIApp]) -> None:
        self.apps = apps

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.apps[scope["method"]](scope, receive, send)


def one_route_per_path(routes: list[BaseRoute]) -> list[BaseRoute]:
    """``routes`` with those sharing a path joined into one route taking all their methods.

    A router answers a wrong method with the ``Allow`` of the first route whose path matched, so
    with one route per method a ``DELETE /v3/glossaries`` would be told ``Allow: POST`` (RFC 9110: every
    method the resource takes).
    """
    by_path: dict[str, list[Route]] = {}
    for route in routes:
        assert isinstance(route, Route) and route.methods, route
        by_path.setdefault(route.path, []).append(route)
    joined: list[BaseRoute] = []
    for path, group in by_path.items():
        apps = {method: route.app for route in group for method in route.methods or ()}
        joined.append(group[0] if len(group) == 1 else Route(path, _ByMethod(apps), methods=list(apps)))
    return joined


class RouteGroup(BaseRoute):
    """One route group under its version's mount: every path whose first segment is one of the group's.

    Its routes are made at the first request under them; one of its paths unknown, or a method it
    does not take, is answered as the mount's own router answers them (404, 405).
    """

    def __init__(self, module: str, segments: tuple[str, ...]) -> None:
        self.module, self.segments = module, frozenset(segments)
        self._router: Router | None = None

    @property
    def router(self) -> Router:
        """The group's routes, loaded on first use (without redirect_slashes ``/v2/translate/`` is a 404)."""
        if self._router is None:
            self._router = Router(one_route_per_path(group_routes(self.module)), redirect_slashes=False)
        return self._router

    def matches(self, scope: Scope) -> tuple[Match, Scope]:
        if scope["type"] != "http":
            return Match.NONE, {}
        path, mounted = scope["path"], scope.get("root_path", "")
        below = path[len(mounted) :] if path.startswith(mounted) else path  # the path under the mount
        return (Match.FULL, {}) if below.lstrip("/").partition("/")[0] in self.segments else (Match.NONE, {})

    def url_path_for(self, name: str, /, **path_params: Any) -> URLPath:
        return self.router.url_path_for(name, **path_params)

    async def handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        await self.router(scope, receive, send)


def _mount(prefix: str, groups: dict[str, tuple[str, ...]]) -> Mount:
    router = Router([RouteGroup(module, segments) for module, segments in groups.items()], redirect_slashes=False)
    return Mount(prefix, app=router)


def routes() -> list[BaseRoute]:
    """Every endpoint of the service: the route groups mounted under ``/v2`` and ``/v3``."""
    return [_mount("/v2", V2_GROUPS), _mount("/v3", V3_GROUPS)]


class ServiceStartError(Exception):
    """The app cannot open: its data directory, database or a translation memory file is unusable."""


def fault_book() -> FaultBook:
    """The counters of the scripted failures (``testing.faults``), loaded for an app started with test faults only."""
    from pipeline.service.testing.faults import FaultBook

    return FaultBook()


def build_state(config: ServiceConfig, faults: FaultBook | None = None) -> ServiceState:
    """Open the store, register the configured accounts, read the memories, pick the engine."""
    db = Database(config.data_dir)
    try:
        accounts = AccountStore(db)
        meter = Meter(db) if faults is None else faults.meter(db)
        clock = config.clock or system_clock
        registered = accounts.register(config.accounts, int(clock().timestamp() * 1000))
        memory_store = MemoryStore(db)
        for account, spec in zip(registered, config.accounts, strict=True):
            memory_store.load(account.account_id, spec)
        resources = Resources(db, memory_store)
        if config.data_dir is not None:  # the file holds every table from the start; an unusable store fails here
            resources.open_all()
    except BaseException:
        db.close()
        raise
    # The pseudo engine ignores instructions; the wrapper follows those it can (engine.instructions).
    engine: Engine = config.engine or InstructionFollowingEngine(PseudoEngine())
    return ServiceState(
        config=config,
        db=db,
        accounts=accounts,
        meter=meter,
        engine=engine if faults is None else faults.mangled(engine),
        lookups=resources,
        clock=clock,
    )


@contextlib.asynccontextmanager
async def _lifespan(app: Starlette) -> AsyncIterator[None]:
    assert isinstance(app, ServiceApp)
    async with app.running():
        yield


class ServiceApp(Starlette):
    """The service as an ASGI app with an explicit, idempotent :meth:`open` and :meth:`aclose`."""

    def __init__(self, config: ServiceConfig) -> None:
        self.config = config
        self._faults = fault_book() if config.test_faults else None
        middleware = [self._faults.middleware()] if self._faults is not None else []
        super().__init__(
            routes=routes(),
            middleware=middleware,
            exception_handlers={
                ApiError: handle_api_error,
                HTTPException: handle_http_exception,
                Exception: handle_unexpected,
            },
            lifespan=_lifespan,
        )
        # "/v2/translate/" is an unknown path (404), not a redirect to "/v2/translate".
        self.router.redirect_slashes = False
        self._phase = "new"
        self._documents: DocumentJobs | None = None

    @property
    def is_open(self) -> bool:
        """Whether the app is open (opened and not yet closed)."""
        return self._phase == "open"

    async def open(self) -> None:
        """Open the database (once), and the document jobs of a data directory; ServiceStartError when they
        cannot be used.

        Nothing here awaits, so two callers on one event loop cannot both open the app.
        """
        if self._phase == "closed":
            raise RuntimeError("the service app was closed; create a new one")
        if self._phase == "open":
            return
        try:
            state = build_state(self.config, self._faults)
        except (OSError, ValueError, sqlite3.Error) as exc:
            raise ServiceStartError(str(exc)) from exc
        self.state.service = state
        if self.config.data_dir is not None:
            try:  # resumes the jobs a previous run left unfinished and drops the expired ones
                self._documents = self._open_documents(state)
            except sqlite3.Error as exc:
                state.close()
                raise ServiceStartError(str(exc)) from exc
        self._phase = "open"

    def document_jobs(self) -> DocumentJobs:
        """The document jobs and their worker: opened with the app when it has a data directory, else at the
        first document request (an in-memory database holds no job before it)."""
        if self._documents is None:
            self._documents = self._open_documents(self.state.service)
        return self._documents

    def _open_documents(self, state: ServiceState) -> DocumentJobs:
        from pipeline.service.documents.jobs import DocumentJobs  # the front door: with the first document

        return DocumentJobs(
            state.db,
            state.engine,
            state.now_ms,
            lookups=state.lookups,
            retention_hours=self.config.document_retention_hours,
            ended=self.config.on_document_ended,
        )

    async def aclose(self) -> None:
        """Stop the document worker and close the database (once); nothing of the app runs afterwards."""
        was_open, self._phase = self._phase == "open", "closed"
        if not was_open:
            return
        if self._documents is None:  # no worker to join, and a database in memory (a data directory opens the jobs)
            self.state.service.close()
        else:  # joining the worker may wait for an engine request in flight: not on the event loop
            await asyncio.to_thread(self._release)

    def _release(self) -> None:
        if self._documents is not None:
            self._documents.close()
        self.state.service.close()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[ServiceApp]:
        """The app opened for the duration of the ``async with`` block, closed afterwards."""
        await self.open()
        try:
            yield self
        finally:
            await self.aclose()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Handle one ASGI call; an HTTP request to an app that is not open is answered 503.

        Every HTTP answer carries ``X-Trace-ID``, a new id per request, as the real service's
        answers do (its clients log it for bug reports).
        """
        if scope["type"] != "http":
            await super().__call__(scope, receive, send)
            return
        send = _traced(send, uuid.uuid4().hex.encode())
        if self._phase != "open":
            message = "the local service is shut down" if self._phase == "closed" else "the local service is not open"
            await error_response(503, message)(scope, receive, send)
            return
        await super().__call__(scope, receive, send)


def _traced(send: Send, trace_id: bytes) -> Send:
    """``send`` with an ``X-Trace-ID`` header added to the start of the answer."""

    async def traced(message: Message) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", ()), (b"x-trace-id", trace_id)]}
        await send(message)

    return traced


def create_app(config: ServiceConfig) -> ServiceApp:
    """The service as an ASGI app; it opens on :meth:`ServiceApp.open` or in its lifespan."""
    return ServiceApp(config)
