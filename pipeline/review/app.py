"""The review page's web app (starlette): the page, its script and style, and a small JSON API.

Every request passes :class:`Guard` first, whatever its path:

* its ``Host`` must be the server's own loopback address (``127.0.0.1:PORT`` or ``localhost:PORT``):
  a page of another site that rebinds its name to 127.0.0.1 (DNS rebinding) is refused;
* an ``Origin`` or ``Sec-Fetch-Site`` it carries must say the request comes from the page itself:
  another site's page cannot drive the API (CSRF), even with the token;
* it must carry the session's token: the page and its files as ``?token=``, API calls in the
  ``X-Review-Token`` header (which no other origin can set without a CORS answer, never given).

Responses forbid framing, inline script, other origins and caching (:data:`SECURITY_HEADERS`).

API (JSON; an entry is named by the id the session gave it, never by a path):

* ``GET /api/entries``: every entry as a list row, the catalogs, the tally;
* ``GET /api/entries/{id}``: one entry in full;
* ``POST /api/entries/{id}/accept|edit|reject|keep`` with ``{"version": ..., "targets": [...],
  "note": ...}``: 200 with the entry written; 422 ``{"errors": [...]}`` refused (a check failed);
  409 ``{"conflict": reason, "entry": ...}`` when the catalog changed under the page;
  a decision on a catalog a run holds waits for it (:meth:`Session.turn`) while other requests are answered;
* ``POST /api/quit``: end the review (the server stops; the command prints its summary).
"""

from __future__ import annotations

import hmac
import html
import json
from collections.abc import Callable
from importlib import resources
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pipeline.review import views
from pipeline.review.session import Conflict, Outcome, Refused, Session

TOKEN_HEADER = "x-review-token"
MAX_BODY = 1 << 20  # bytes of a request body: an edit or a note is far smaller
SECURITY_HEADERS = [
    (
        b"content-security-policy",
        b"default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; "
        b"base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    ),
    (b"x-frame-options", b"DENY"),
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
    (b"cache-control", b"no-store"),
    (b"cross-origin-resource-policy", b"same-origin"),
]
_FILES = {"review.js": "text/javascript; charset=utf-8", "review.css": "text/css; charset=utf-8"}


class Guard:
    """Refuses any request that is not the page's own (wrong Host, another Origin, no token); see the module."""

    def __init__(self, app: ASGIApp, token: str, port: int) -> None:
        self.app = app
        self.token = token.encode("ascii")
        self.hosts = {f"{name}:{port}".encode("ascii") for name in ("127.0.0.1", "localhost")}
        self.origins = {b"http://" + host for host in self.hosts}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        """Answer 403 (or 421 for a foreign Host) unless the request passes every check; add the headers."""
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        refusal = self.refusal(scope)

        async def secured(message: Message) -> None:
            if message["type"] == "http.response.start":
                message = {**message, "headers": [*message.get("headers", []), *SECURITY_HEADERS]}
            await send(message)

        if refusal is not None:
            status, reason = refusal
            await Response(reason + "\n", status, media_type="text/plain")(scope, receive, secured)
            return
        await self.app(scope, receive, secured)

    def refusal(self, scope: Scope) -> tuple[int, str] | None:
        """(status, reason) when the request must be refused, else None."""
        headers: dict[bytes, bytes] = {}
        for name, value in scope["headers"]:
            if name in headers:  # a header given twice may be read either way by a proxy: refused
                return 400, f"{name.decode('latin-1')} given twice"
            headers[name] = value
        if headers.get(b"host") not in self.hosts:
            return 421, "this server answers for its own loopback address only"
        origin = headers.get(b"origin")
        if origin is not None and origin not in self.origins:
            return 403, "requests from other origins are refused"
        if headers.get(b"sec-fetch-site", b"same-origin") not in (b"same-origin", b"none"):
            return 403, "requests from other sites are refused"
        given = headers.get(TOKEN_HEADER.encode()) or _query_token(scope.get("query_string", b""))
        if given is None or not hmac.compare_digest(given, self.token):
            return 403, "missing or wrong token: open the address `pipeline review` printed"
        return None


def _query_token(query: bytes) -> bytes | None:
    values = parse_qs(query.decode("latin-1")).get("token")
    return values[0].encode("latin-1") if values else None


def create_app(session: Session, token: str, port: int, on_quit: Callable[[], None]) -> ASGIApp:
    """The review app for ``session``, answering at ``127.0.0.1:port`` to requests with ``token`` only."""
    api = _Api(session, token, on_quit)
    routes = [
        Route("/", api.index),
        Route("/static/{name}", api.static),
        Route("/api/entries", api.listing),
        Route("/api/entries/{id}", api.entry),
        Route("/api/entries/{id}/{action}", api.decide, methods=["POST"]),
        Route("/api/quit", api.quit, methods=["POST"]),
    ]
    return Guard(Starlette(routes=routes), token, port)


class _Api:
    """The endpoints, around one session."""

    def __init__(self, session: Session, token: str, on_quit: Callable[[], None]) -> None:
        self.session = session
        self.on_quit = on_quit
        files = resources.files("pipeline.review")
        page = files.joinpath("static/review.html").read_text(encoding="utf-8")
        self.page = page.replace("{{token}}", html.escape(token, quote=True))
        self.files = {name: files.joinpath(f"static/{name}").read_bytes() for name in _FILES}

    async def index(self, request: Request) -> Response:
        """The page."""
        return Response(self.page, media_type="text/html; charset=utf-8")

    async def static(self, request: Request) -> Response:
        """The page's script and style."""
        name = request.path_params["name"]
        if name not in self.files:
            return Response("not found\n", 404, media_type="text/plain")
        return Response(self.files[name], media_type=_FILES[name])

    async def listing(self, request: Request) -> Response:
        """Every entry as a row, the catalogs, the tally."""
        return JSONResponse(views.listing(self.session))

    async def entry(self, request: Request) -> Response:
        """One entry in full."""
        found = self.session.entries.get(request.path_params["id"])
        if found is None:
            return JSONResponse({"errors": ["no such entry"]}, 404)
        return JSONResponse(views.detail(self.session, found))

    async def decide(self, request: Request) -> Response:
        """A decision on one entry: written (200), refused (422), or the entry changed under the page (409)."""
        session = self.session
        body = await _json_body(request)
        if not isinstance(body, dict) or not isinstance(body.get("version"), str):
            return JSONResponse({"errors": ['a JSON object with the "version" the page saw is expected']}, 400)
        entry_id = request.path_params["id"]
        try:
            act = _action(request.path_params["action"], body)  # a request the page never sends: before any wait
            async with session.turn(entry_id):  # waits for a run that holds the catalog, answering others
                outcome = act(session, entry_id)
        except KeyError:
            return JSONResponse({"errors": ["no such entry"]}, 404)
        except _BadRequest as exc:
            return JSONResponse({"errors": [str(exc)]}, 400)
        except Refused as exc:
            return JSONResponse({"errors": exc.reasons}, 422)
        except Conflict as exc:
            fresh = views.detail(session, exc.entry) if exc.entry is not None else None
            return JSONResponse({"conflict": exc.reason, "entry": fresh, "tally": views.tally(session)}, 409)
        return JSONResponse(
            {
                "entry": views.detail(session, outcome.entry),
                "warnings": list(outcome.warnings),
                "reloaded": [views.row(session, e) for e in outcome.reloaded],
                "tally": views.tally(session),
            }
        )

    async def quit(self, request: Request) -> Response:
        """End the review: the server stops once this answer is sent."""
        self.on_quit()
        return JSONResponse({"tally": views.tally(self.session), "summary": self.session.summary()})


class _BadRequest(ValueError):
    """A request the page never sends: a wrong action or field type."""


def _action(action: str, body: dict[str, Any]) -> Callable[[Session, str], Outcome]:
    """The decision ``action`` with ``body`` asks for, to make on an entry; :class:`_BadRequest` for an action or a
    field the page never sends."""
    version = body["version"]
    if action == "accept":
        return lambda session, entry_id: session.accept(entry_id, version)
    if action == "reject":
        return lambda session, entry_id: session.reject(entry_id, version)
    if action == "edit":
        targets = body.get("targets")
        if not isinstance(targets, list) or not all(isinstance(t, str) for t in targets):
            raise _BadRequest('"targets" must be a list of texts, one per form')
        return lambda session, entry_id: session.edit(entry_id, version, targets)
    if action == "keep":
        note = body.get("note")
        if not isinstance(note, str):
            raise _BadRequest('"note" must be a text')
        return lambda session, entry_id: session.keep(entry_id, version, note)
    raise _BadRequest(f"unknown action {action[:20]!r}")


async def _json_body(request: Request) -> object:
    """The request's JSON body (None when it is not JSON or larger than :data:`MAX_BODY`)."""
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            return None
    try:
        return json.loads(body)
    except (ValueError, RecursionError):
        return None
