"""Scripted failures for tests (``X-Test-Fault``), off unless the configuration enables them."""
