"""The TLS context a client of an https service verifies with: made once per process, and started early.

Given ``verify=True``, httpx makes a context for every transport: ``ssl.create_default_context``
with certifi's roots, or with those ``SSL_CERT_FILE`` (else ``SSL_CERT_DIR``) names. Loading a
bundle of roots costs 20-90 ms of CPU, and behind proxies a client has a transport per proxy
variable besides its direct one, each loading it again. Here the context is made as httpx 0.28
makes it, same roots, same checks (``CERT_REQUIRED``, host names), once per process for the same
roots. :func:`start` begins making it in a worker thread: OpenSSL parses the roots without
holding the GIL, so the client's modules are imported beside it (about 40 ms, httpx and httpcore),
and :func:`verifying` returns it when the client is built.

The roots are looked up as httpx looks them up: the environment is read when the client is made
(a context made for other roots is not used), and a bundle whose file changed is loaded again (the
context of its older state is let go). Roots that cannot be loaded are a ``ValueError`` that names
the variable and the file, not an ``OSError`` or ``ssl.SSLError`` from deep inside httpx.
"""

import os
import ssl
import stat
import threading
from concurrent.futures import Future
from typing import NamedTuple

__all__ = ["Roots", "roots", "start", "verifying"]


class Roots(NamedTuple):
    """Where a context's roots come from: a bundle file or a folder, what names it, and the file's state."""

    cafile: str | None
    capath: str | None
    named_by: str  # SSL_CERT_FILE, SSL_CERT_DIR, or certifi
    state: tuple[int, int] | None  # the bundle's size and mtime, so a changed bundle is loaded again

    def unusable(self, reason: str) -> ValueError:
        """The error that says these roots cannot be used, and why."""
        return ValueError(f"cannot load the TLS roots {self.named_by} names ({self.cafile or self.capath}): {reason}")


def roots() -> Roots:
    """The roots a client made now verifies with, read from the environment as httpx reads it."""
    cafile = os.environ.get("SSL_CERT_FILE")
    if cafile:
        return Roots(cafile, None, "SSL_CERT_FILE", _state(cafile))
    capath = os.environ.get("SSL_CERT_DIR")
    if capath:  # OpenSSL reads a folder's certificates during each handshake: nothing to watch
        return Roots(None, capath, "SSL_CERT_DIR", None)
    import certifi  # the front door: certifi, once an https client needs its roots (the embedded one never does)

    cafile = certifi.where()
    return Roots(cafile, None, "certifi", _state(cafile))


def _state(path: str) -> tuple[int, int] | None:
    try:
        info = os.stat(path)
    except OSError:  # said when the context is made
        return None
    return info.st_size, info.st_mtime_ns


_made: dict[Roots, Future[ssl.SSLContext]] = {}  # the contexts of this process, by their roots
_lock = threading.Lock()


def start() -> None:
    """Begin making the context for the environment's roots in a worker thread, unless it is made or on its way."""
    _future(roots(), threaded=True)


def verifying() -> ssl.SSLContext:
    """The context for the environment's roots, made once per process (by :func:`start`'s thread if it began).

    Raises ValueError, naming the variable and the file, when the roots cannot be loaded.
    """
    return _future(roots(), threaded=False).result()


def _future(where: Roots, threaded: bool) -> Future[ssl.SSLContext]:
    with _lock:
        future = _made.get(where)
        if future is not None:
            return future
        for older in [made for made in _made if made[:3] == where[:3]]:  # the same bundle before it changed
            del _made[older]
        future = _made[where] = Future()
    if threaded:
        threading.Thread(target=_make, args=(where, future), name="tls-context", daemon=True).start()
    else:
        _make(where, future)
    return future


def _make(where: Roots, future: Future[ssl.SSLContext]) -> None:
    try:
        context = _context(where)
    except Exception as exc:  # noqa: BLE001 - whatever it is, the client waiting for the context raises it
        with _lock:  # not kept: the next client tries again (the file may be mended by then)
            if _made.get(where) is future:
                del _made[where]
        future.set_exception(exc)
    else:
        future.set_result(context)


def _context(where: Roots) -> ssl.SSLContext:
    if where.capath is not None and not os.path.isdir(where.capath):
        # OpenSSL would take it and trust nothing: every handshake would fail, saying less.
        raise where.unusable("not a folder")
    if where.cafile is not None:
        _regular(where)
    try:
        return ssl.create_default_context(cafile=where.cafile, capath=where.capath)
    except OSError as exc:  # the file cannot be read, or holds no certificate OpenSSL can parse (ssl.SSLError)
        raise where.unusable(exc.strerror or str(exc)) from None


def _regular(where: Roots) -> None:
    """Refuse a bundle that is not a regular file: OpenSSL would open a FIFO and wait for a writer that never comes
    (in the worker thread, which no signal reaches, with the run waiting for it), or read a device without end."""
    try:
        mode = os.stat(where.cafile or "").st_mode
    except OSError:  # said by OpenSSL as it is (missing, not allowed)
        return
    if not stat.S_ISREG(mode):
        kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "a device"
        raise where.unusable(f"not a regular file ({kind})")
