"""What the sync and async shells share: settings, default headers, the user agent, ``repr``."""

from __future__ import annotations

import base64
import copy
import functools
import ipaddress
import ssl
import sys
import time
from collections.abc import Callable
from http.cookiejar import Cookie, CookieJar
from typing import Any, Self, TypeVar
from urllib.parse import unquote
from urllib.request import getproxies

import httpx

from pipeline import protocol
from pipeline.client import tls
from pipeline.client.endpoints import TextEndpoints
from pipeline.client.requests import Request
from pipeline.client.retry import RetryPolicy
from pipeline.client.terminology import TerminologyEndpoints
from pipeline.distribution import DISTRIBUTION, __version__
from pipeline.errors import has_userinfo, redact_url, userinfo

#: Pooled keep-alive connections of the default transports.
POOL_LIMITS = httpx.Limits(max_connections=20, max_keepalive_connections=10, keepalive_expiry=30.0)


#: The schemes of the proxy variables (``HTTP_PROXY``, ``HTTPS_PROXY``, ``ALL_PROXY``) as ``getproxies`` keys them.
_PROXY_SCHEMES = ("http", "https", "all")

H = TypeVar("H")


def on_this_machine(host: str) -> bool:
    """Whether ``host`` (as httpx spells it: lowercase, an IPv6 address without brackets) can only name
    this machine: ``localhost``, a loopback address in any spelling (``127.0.0.2``, ``::ffff:127.0.0.1``),
    or the unspecified address (``0.0.0.0``, ``::``) that a connection takes for this machine.

    Go's clients (``http.ProxyFromEnvironment``) never send ``localhost`` and loopback addresses to a
    proxy; neither do we, nor the unspecified address a service listening on all interfaces prints.
    """
    if host == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback or address.is_unspecified


def behind_proxy(base_url: str) -> bool:
    """Whether a network client of ``base_url`` lets httpx apply the environment's proxies: one is named,
    and the service is not on this machine (:func:`on_this_machine`), which a proxy elsewhere cannot reach.
    """
    proxies = getproxies()
    return any(proxies.get(scheme) for scheme in _PROXY_SCHEMES) and not on_this_machine(httpx.URL(base_url).host)


def proxy_secrets() -> tuple[str, ...]:
    """The passwords of the proxies the environment names, as written, decoded, and as the
    ``Proxy-Authorization`` token httpx sends them in: a proxy's error page may quote that header.
    """
    secrets: list[str] = []
    for scheme, value in getproxies().items():
        info = userinfo(value) if scheme in _PROXY_SCHEMES else None
        if info is None:
            continue
        user, _, password = info.partition(":")
        if password:
            plain = f"{unquote(user)}:{unquote(password)}"
            token = base64.b64encode(plain.encode("utf-8")).decode("ascii")
            secrets += [password, unquote(password), token]
    return tuple(secrets)


def open_http(
    client: Callable[..., H], network: Callable[..., object], base_url: str, transport: object | None, **settings: Any
) -> H:
    """A shell's httpx ``client`` for ``base_url``, reaching it through ``transport`` when one is
    given (the embedded service, a test's) and over the network otherwise.

    Over the network: pooled connections and TLS verified (:func:`tls_verify`), through a ``network``
    transport (httpx's own class, sync or async) that uses no proxy unless :func:`behind_proxy`; then
    httpx builds its transports with the proxies the environment names (``HTTPS_PROXY``,
    ``HTTP_PROXY``, ``ALL_PROXY``, less the hosts of ``NO_PROXY``), read as httpx reads them. A
    setting httpx cannot use (an unknown scheme, SOCKS without ``socksio``, a ``NO_PROXY`` entry it
    cannot parse) is a ValueError that says so, as a bad ``base_url`` is, and so are roots of trust
    that cannot be loaded; without a proxy, ``NO_PROXY`` is not read at all.
    """
    if transport is not None:
        return client(base_url=base_url, transport=transport, **settings)
    verify = tls_verify(base_url)
    if not behind_proxy(base_url):
        return client(base_url=base_url, transport=network(limits=POOL_LIMITS, verify=verify), **settings)
    try:
        return client(base_url=base_url, limits=POOL_LIMITS, verify=verify, **settings)
    except (ValueError, ImportError, httpx.InvalidURL) as exc:  # only the proxy settings are parsed here
        raise ValueError(
            f"the proxy the environment names (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY, NO_PROXY) cannot be used: {exc}"
        ) from None


def tls_verify(base_url: str) -> ssl.SSLContext:
    """What the network transports verify TLS with: the roots httpx would use (certifi's, or those
    ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` name), in one context per process (:mod:`pipeline.client.tls`),
    which every transport of a client behind proxies shares.

    A service over plain http (``pipeline serve``, a test server) never makes its transports speak
    TLS with it (requests go to the base URL; redirects are not followed), so their context loads no
    roots: loading them costs 20-90 ms, and a TLS handshake with no roots fails, closed. Through a
    proxy the same holds: httpcore forwards a plain http request, and reaches an https proxy with its
    own context (``proxy_ssl_context``), never this one. Raises ValueError, naming the variable and
    the file, when the roots cannot be loaded.
    """
    if httpx.URL(base_url).scheme == "http":
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    return tls.verifying()


class NoCookies(CookieJar):
    """A cookie jar that keeps none: the service sets no cookies, and a client never sends one.

    httpx has no switch for it; its maintainers suggest this jar (encode/httpx#2992).
    """

    def extract_cookies(self, response: Any, request: Any) -> None:
        """Keep nothing of an answer's ``Set-Cookie``."""

    def set_cookie(self, cookie: Cookie) -> None:
        """Keep no cookie."""


class _Cookieless(httpx.Cookies):
    """httpx's cookies over :class:`NoCookies`, which never look at an answer.

    httpx hands every answer to its client's cookies, which wrap answer and request in urllib's
    objects for the jar before the jar can ignore them: 0.17 M of the 3.2 M instructions of an
    embedded request (bench/performance/service/embedded_request.py).
    """

    def __init__(self) -> None:
        super().__init__(NoCookies())

    def extract_cookies(self, response: httpx.Response) -> None:
        """Keep nothing of an answer's ``Set-Cookie``."""


class Cookieless:
    """Mixed into an httpx client: its ``cookies`` are a :class:`_Cookieless` that no assignment replaces."""

    _no_cookies = _Cookieless()

    @property
    def cookies(self) -> httpx.Cookies:
        """No cookies, ever."""
        return self._no_cookies

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        """Keep none of ``cookies``."""


class AbsoluteURLs:
    """Each request path's URL on the service, joined with the base URL as httpx does, once per path.

    Given a path, httpx parses it and joins it with its base URL at every request (a fifth of the
    client's time on a small request); an absolute URL it takes as it is. Paths that name a
    document or a glossary make the set grow: past ``most`` it starts again.
    """

    def __init__(self, base: httpx.URL, most: int = 256) -> None:
        self._base = base
        self._most = most
        self._urls: dict[str, httpx.URL] = {}

    def __call__(self, path: str) -> httpx.URL:
        url = self._urls.get(path)
        if url is None:
            if len(self._urls) >= self._most:
                self._urls.clear()
            url = self._urls[path] = self._join(path)
        return url

    def _join(self, path: str) -> httpx.URL:
        # httpx.Client._merge_url's rule: a relative path goes below the base URL's path.
        url = httpx.URL(path)
        if not url.is_relative_url:
            return url
        return self._base.copy_with(raw_path=self._base.raw_path + url.raw_path.lstrip(b"/"))


#: ``platform.python_implementation()``'s names of the interpreters ``sys.implementation`` names.
_IMPLEMENTATIONS = {"cpython": "CPython", "pypy": "PyPy", "ironpython": "IronPython", "jython": "Jython"}


@functools.cache
def user_agent() -> str:
    """``pipeline-i18n/<version> httpx/<version> CPython/<version>`` (the interpreter's name and version)."""
    # The version module, not importlib.metadata: reading the installed package's metadata
    # imported zipfile, csv and the metadata machinery into every run for one string. And sys, not
    # platform: importing platform (eight regexes) cost a run against a remote service 8 M instructions.
    name = sys.implementation.name
    version = sys.version.split(maxsplit=1)[0]  # "3.11.7", or "3.14.0rc1": what platform.python_version() reads
    return f"{DISTRIBUTION}/{__version__} httpx/{httpx.__version__} {_IMPLEMENTATIONS.get(name, name)}/{version}"


def default_headers(auth_key: str, reporting_tag: str | None) -> dict[str, str]:
    """Headers sent with every request: the key only ever in ``Authorization``."""
    if problem := protocol.key_problem(auth_key):
        raise ValueError(f"auth_key {problem}")
    headers = {
        protocol.AUTH_HEADER: f"{protocol.AUTH_SCHEME} {auth_key}",
        "User-Agent": user_agent(),
        "Accept": "application/json",
    }
    if reporting_tag is not None:
        headers[protocol.REPORTING_TAG_HEADER] = reporting_tag
    return headers


class ShellSettings:
    """Settings common to :class:`~pipeline.client.Client` and :class:`~pipeline.client.AsyncClient`."""

    base_url: str
    _secrets: tuple[str, ...]
    _retry: RetryPolicy
    _clock: Callable[[], float]
    _url: AbsoluteURLs  # set by the shell, from its httpx client's base URL

    def _configure(
        self,
        base_url: str,
        auth_key: str,
        retry: RetryPolicy | None,
        reporting_tag: str | None,
        clock: Callable[[], float] | None,
    ) -> dict[str, str]:
        if has_userinfo(base_url):  # httpx would send it as Basic auth, replacing the key's header
            raise ValueError(
                f"base_url must not carry a user or password ({redact_url(base_url)} is shown without them): "
                f"httpx would send them as Basic auth in place of the key"
            )
        if httpx.URL(base_url).scheme not in ("http", "https"):
            raise ValueError(f"base_url must start with http:// or https://, not {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self._secrets = (auth_key, *proxy_secrets())
        self._retry = retry or RetryPolicy()
        self._clock = clock or time.monotonic
        return default_headers(auth_key, reporting_tag)

    def _arguments(self, request: Request) -> dict[str, Any]:
        """``request`` as keyword arguments of the httpx client's ``stream``, its URL absolute."""
        arguments = request.httpx_arguments()
        arguments["url"] = self._url(arguments["url"])
        return arguments

    @property
    def retry(self) -> RetryPolicy:
        """How this client retries."""
        return self._retry

    def with_retry(self, retry: RetryPolicy) -> Self:
        """The same client (same connections, key and settings) retrying by ``retry``; close only the original."""
        view = copy.copy(self)
        view._retry = retry
        return view

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self.base_url!r}, auth_key='***')"


class ClientBase(TextEndpoints, TerminologyEndpoints, ShellSettings):
    """The endpoint methods, written once, with the settings they run on; both shells derive from it.

    Type checkers see the async shell through ``aio_endpoints.pyi`` instead, generated from these
    methods by :mod:`pipeline.client.stubgen`, so that its methods return coroutines.
    """
