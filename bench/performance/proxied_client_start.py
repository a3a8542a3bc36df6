"""Milliseconds to build (and close) a client of a remote http or https service behind the environment's proxies.

httpx builds one transport per proxy variable plus one direct, each with the client's TLS context;
an http service's context loads no roots (``pipeline.client.base.tls_verify``), and an https
service's roots are loaded once per process (``pipeline.client.tls``): the first https client pays
for them, not the later ones. Prints JSON.
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

    figures = {}
    for scheme in ("http", "https"):
        Client(f"{scheme}://mt.example.com", "key").close()  # imports and first-use costs out of the figure
        started = time.perf_counter()
        for _ in range(ROUNDS):
            Client(f"{scheme}://mt.example.com", "key").close()
        figures[f"proxied_{scheme}_client_ms"] = round((time.perf_counter() - started) / ROUNDS * 1000, 1)
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
