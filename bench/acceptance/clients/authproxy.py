"""A loopback HTTP proxy that renames the real service's authorization scheme to the contract's.

The official clients send ``Authorization: DeepL-Auth-Key <key>``; the contract names the scheme
``Service-Auth-Key`` and ``pipeline serve`` refuses the real word. Their test suites build their
clients themselves, so the rename cannot be made in the client: this proxy sits between and
rewrites that one word, leaving every other byte of the request and the answer as it was.
"""

from __future__ import annotations

from bench.harness.proxy import LoopbackProxy

REAL_SCHEME = "DeepL-Auth-Key"
CONTRACT_SCHEME = "Service-Auth-Key"


def renamed(name: str, value: str) -> str:
    """``value`` of header ``name`` with the real scheme word replaced by the contract's."""
    if name.lower() != "authorization":
        return value
    scheme, sep, rest = value.partition(" ")
    return f"{CONTRACT_SCHEME}{sep}{rest}" if scheme.lower() == REAL_SCHEME.lower() else value


class AuthProxy(LoopbackProxy):
    """Forward every request to ``upstream`` with the scheme renamed; ``port`` is where it listens."""

    name = "authorization proxy"

    def headers(self, received: list[tuple[str, str]]) -> list[tuple[str, str]]:
        """The headers received, the authorization scheme renamed."""
        return [(k, renamed(k, v)) for k, v in received]
