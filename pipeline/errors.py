"""The whole exception tree of the project.

::

    PipelineError                      exit 1 unless a subclass says otherwise
    ├── UsageError                     exit 2  bad command line or configuration
    │   └── ConfigError                        names the file (and key) that is wrong
    ├── CatalogError                   exit 1  a catalog cannot be read; carries path and line
    ├── ClientLimitError               exit 2  a request would break a service limit; not sent
    └── ServiceError                           the service answered with an error, or not at all
        ├── BadRequestError      400
        ├── AuthenticationError  403   exit 4  key missing, refused, wrong tier, legacy auth
        ├── NotFoundError        404
        ├── PayloadTooLargeError 413
        ├── RateLimitedError     429           should_retry, retry_after
        ├── QuotaExceededError   456   exit 3  never retried
        ├── ServerError          5xx           should_retry
        ├── TransportError       -     exit 4  timeout, reset, refused connection; should_retry
        ├── AnswerTooLargeError  -             the answer passed what its request can produce; not read on
        └── DocumentTranslationError           a document job ended in `error` or took too long

Foreign exceptions (httpx's) are translated into these at exactly one place, the client's
transport shell (``pipeline.client``). Messages never contain a key: the service never echoes
one, and the client redacts its own before raising (see :func:`redact`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import unquote, urlsplit


class ExitCode:
    """Process exit codes of ``pipeline`` (documented in the README)."""

    OK = 0
    PARTIAL = 1  # some segments failed or some input was invalid; everything else was written
    USAGE = 2
    QUOTA = 3  # quota exceeded or budget reached; work done so far is saved
    UNAVAILABLE = 4  # authentication refused or service unreachable
    PENDING = 5  # --frozen: a run would translate or merge something (nothing was sent or written)
    LOCKED = 6  # another run held catalogs longer than the run would wait; what was done before is saved
    INTERRUPTED = 130  # SIGINT (Ctrl-C): stopped sending; what was done is written and saved
    TERMINATED = 143  # SIGTERM: the same


class PipelineError(Exception):
    """Base of every error the project raises on purpose."""

    exit_code = ExitCode.PARTIAL


class UsageError(PipelineError):
    """The command line or the configuration asks for something impossible."""

    exit_code = ExitCode.USAGE


class ConfigError(UsageError):
    """The configuration file is wrong; the message names the file and the key.

    ``key``, the path of the key from the configuration's table (``("service", "url")``), lets the
    one place that has the file's text say the line it is on (:func:`pipeline.config.load_settings`).
    """

    def __init__(self, message: str, key: tuple[str, ...] | None = None) -> None:
        super().__init__(message)
        self.key = key


class CatalogError(PipelineError):
    """A catalog cannot be read or written; carries the path and, when known, the line."""

    def __init__(self, path: str, reason: str, line: int | None = None) -> None:
        self.path, self.reason, self.line = path, reason, line
        where = f"{path}:{line}" if line else path
        super().__init__(f"{where}: {reason}")


class ClientLimitError(PipelineError):
    """A request would break one of the service's limits, so it was not sent."""

    exit_code = ExitCode.USAGE


class ServiceError(PipelineError):
    """The service refused a request or could not be reached.

    ``status_code`` is None for transport failures; ``message`` is the service's own text;
    ``attempts`` is how many times the client sent the request before giving up with this error.
    """

    should_retry = False

    def __init__(self, message: str, status_code: int | None = None, retry_after: float | None = None) -> None:
        self.message, self.status_code, self.retry_after = message, status_code, retry_after
        self.attempts = 1
        prefix = f"service answered {status_code}" if status_code is not None else "service unreachable"
        super().__init__(f"{prefix}: {message}")


class BadRequestError(ServiceError):
    """400: the request is malformed or breaks a rule of the service."""


class AuthenticationError(ServiceError):
    """403: the key is missing, unknown, deactivated, of the wrong tier, or sent the legacy way."""

    exit_code = ExitCode.UNAVAILABLE


class ProxyRefusedError(ServiceError):
    """407, from the proxy the environment names: it wants other credentials. Never retried (the same
    ones cannot pass); the message says where they are set.
    """

    exit_code = ExitCode.UNAVAILABLE

    def __init__(self, message: str, status_code: int | None = 407, retry_after: float | None = None) -> None:
        super().__init__(message, status_code, retry_after)
        self.args = (
            f"the proxy answered {status_code}: {message}; check the user and password of the proxy in "
            f"HTTPS_PROXY, HTTP_PROXY or ALL_PROXY",
        )


class NotFoundError(ServiceError):
    """404: the resource (glossary, style list, document, path) does not exist."""


class PayloadTooLargeError(ServiceError):
    """413: the request body is over the endpoint's limit."""


class RateLimitedError(ServiceError):
    """429: too many requests; wait ``retry_after`` seconds when the service said so."""

    should_retry = True


class QuotaExceededError(ServiceError):
    """456: a key-level or account-level character limit is used up. Never retried."""

    exit_code = ExitCode.QUOTA


class ServerError(ServiceError):
    """5xx: the service failed; worth another try."""

    should_retry = True


class TransportError(ServiceError):
    """No answer: connection refused or reset, timeout, protocol error."""

    exit_code = ExitCode.UNAVAILABLE
    should_retry = True


class AnswerTooLargeError(ServiceError):
    """The answer's body passed the bound its request allows (a broken or hostile service); never retried.

    The client stops reading at the bound, so an endless answer costs that many bytes of memory.
    """

    def __init__(self, what: str, limit: int, status_code: int | None = None) -> None:
        super().__init__(
            f"the answer to {what} passed {limit} bytes, more than the request can produce; the rest was not read",
            status_code,
        )


class DocumentTranslationError(ServiceError):
    """A document job ended in ``error``, or did not finish in the time allowed."""

    def __init__(self, document_id: str, message: str) -> None:
        super().__init__(message)
        self.document_id = document_id
        self.args = (f"document {document_id}: {message}",)


_BY_STATUS: dict[int, type[ServiceError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: AuthenticationError,
    404: NotFoundError,
    407: ProxyRefusedError,
    413: PayloadTooLargeError,
    429: RateLimitedError,
    456: QuotaExceededError,
}


def error_for_status(status_code: int, message: str, retry_after: float | None = None) -> ServiceError:
    """The ServiceError subclass instance for an HTTP error status."""
    if status_code >= 500:
        cls: type[ServiceError] = ServerError
    else:
        cls = _BY_STATUS.get(status_code, BadRequestError)
    return cls(message, status_code=status_code, retry_after=retry_after)


#: A secret shorter than this is starred only where it stands as a word: "k" or "un" inside "unknown"
#: is a piece of another word, not the key. A longer one is starred wherever it is.
SHORT_SECRET = 8


def redact(text: str, secrets: Iterable[str]) -> str:
    """``text`` with every non-empty secret replaced by ``***``: longest first, a short one (under
    :data:`SHORT_SECRET` characters) only where no letter, digit or ``_`` touches it."""
    # Each also as a message quoting it escaped spells it: repr of the text, of its UTF-8 bytes.
    spellings = {
        spelled for s in secrets if s for spelled in (s, repr(s)[1:-1], repr(s.encode("utf-8", "replace"))[2:-1])
    }
    for secret in sorted(spellings, key=len, reverse=True):
        if len(secret) >= SHORT_SECRET:
            text = text.replace(secret, "***")
        else:
            text = re.sub(rf"(?<!\w){re.escape(secret)}(?!\w)", "***", text)
    return text


def redact_url(url: str) -> str:
    """``url`` without user, password or query (which may carry one): safe to print.

    Whatever stands between ``//`` and the last ``@`` is taken for a user and password, however
    the URL parses: a password pasted without percent-encoding (``/`` or ``?`` in it) moves the
    parts a parser sees, never what is shown.
    """
    scheme, _, rest = url.partition("://")
    try:
        parts = urlsplit(f"{scheme}://{rest.rpartition('@')[2]}")
        host = parts.hostname or ""
        port = f":{parts.port}" if parts.port else ""
    except ValueError:
        return "the configured URL"
    if parts.scheme == "unix":
        return f"unix://{parts.path}"
    return f"{parts.scheme}://{host}{port}{parts.path}"


def url_secrets(url: str) -> tuple[str, ...]:
    """What of ``url`` must never be printed: what stands between ``//`` and its last ``@`` (see
    :func:`redact_url`), its user, its password and each piece a parser may cut them into, the
    query and its ``password`` and ``username``, each as written and percent-decoded."""
    rest = url.partition("://")[2]
    info, at, after = rest.rpartition("@")
    found = {info, *info.split(":", 1), *re.split(r"[:/?#@]", info)} if at else set()
    query = (after if at else rest).partition("?")[2].partition("#")[0]
    found |= {query, *(value for key, _, value in _pairs(query) if key.lower() in ("password", "username"))}
    found |= {unquote(piece) for piece in found}
    return tuple(sorted(filter(None, found), key=len, reverse=True))


def _pairs(query: str) -> list[tuple[str, str, str]]:
    return [pair.partition("=") for pair in query.split("&")]


def has_userinfo(url: str) -> bool:
    """Whether ``url`` names a user or password (``https://user:pw@host``), parsed or not."""
    return userinfo(url) is not None


def userinfo(url: str) -> str | None:
    """The ``user:password`` part of ``url`` as written (None when it has none), parsed or not: the
    authority ends at the first ``/``, ``?``, ``#`` or ``\\``, and its last ``@`` ends the userinfo,
    as urllib and httpx read it.
    """
    authority = re.split(r"[/?#\\]", url.split("://", 1)[-1], maxsplit=1)[0]
    info, at, _ = authority.rpartition("@")
    return info if at else None
