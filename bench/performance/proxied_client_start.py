"""Milliseconds to build (and close) a client of a remote http service behind the environment's proxies.

httpx builds one transport per proxy variable plus one direct, each with the client's TLS context;
an http service's context loads no roots (``pipeline.client.base.tls_verify``). Prints JSON.
"""

from __future__ import annotations

import json
import os
import time

ROUNDS = 20


def main() -> None:
    """Print the mean start-up of a proxied client, in milliseconds."""
    os.environ.update(HTTP_PROXY="http://proxy.example:3128", HTTPS_PROXY="http://proxy.example:3128")
    from pipeline.client.sync import Client

    Client("http://mt.example.com", "key").close()  # imports and first-use costs out of the figure
    started = time.perf_counter()
    for _ in range(ROUNDS):
        Client("http://mt.example.com", "key").close()
    print(json.dumps({"proxied_http_client_ms": round((time.perf_counter() - started) / ROUNDS * 1000, 1)}))


if __name__ == "__main__":
    main()
