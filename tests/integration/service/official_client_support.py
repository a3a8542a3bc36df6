"""The official client of the real service (the ``deepl`` package), pointed at ``pipeline serve``.

The contract renames the authorization scheme (``Service-Auth-Key`` instead of the real
service's word). The library keeps the header it sends with every request in the public
per-instance ``headers`` attribute (``Translator._api_call`` merges it into each request), so
replacing that one entry is the whole transport change: nothing of the library is patched and
every method runs its own code path unchanged.
"""

from __future__ import annotations

import deepl


def official_client(url: str, key: str) -> deepl.DeepLClient:
    """A ``deepl.DeepLClient`` on ``url`` that authenticates the way the contract names it."""
    client = deepl.DeepLClient(key, server_url=url, send_platform_info=False)
    client.headers = {"Authorization": f"Service-Auth-Key {key}"}
    return client
