"""The official client of the real service (the ``deepl`` package), pointed at ``pipeline serve``.

The contract renames the authorization scheme (``Service-Auth-Key`` instead of the real
service's word). The library keeps the header it sends with every request in the public
per-instance ``headers`` attribute (``Translator._api_call`` merges it into each request), so
replacing that one entry is the whole transport change: nothing of the library is patched and
every method runs its own code path unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, overload

import deepl
from deepl.api_data import WriteResult


class OfficialClient(deepl.DeepLClient):
    """``deepl.DeepLClient`` as it answers: one text gives one result, a list of texts a list.

    The library annotates these methods with the union whatever the argument; these overloads only
    narrow that for the type checker and call the library's own method.
    """

    @overload
    def translate_text(self, text: str, **options: Any) -> deepl.TextResult: ...
    @overload
    def translate_text(self, text: Iterable[str], **options: Any) -> list[deepl.TextResult]: ...
    def translate_text(self, text: str | Iterable[str], **options: Any) -> deepl.TextResult | list[deepl.TextResult]:
        return super().translate_text(text, **options)

    @overload
    def rephrase_text(self, text: str, **options: Any) -> WriteResult: ...
    @overload
    def rephrase_text(self, text: Iterable[str], **options: Any) -> list[WriteResult]: ...
    def rephrase_text(self, text: str | Iterable[str], **options: Any) -> WriteResult | list[WriteResult]:
        return super().rephrase_text(text, **options)

    @overload
    def correct_text(self, text: str, **options: Any) -> WriteResult: ...
    @overload
    def correct_text(self, text: Iterable[str], **options: Any) -> list[WriteResult]: ...
    def correct_text(self, text: str | Iterable[str], **options: Any) -> WriteResult | list[WriteResult]:
        return super().correct_text(text, **options)

    @overload
    def translate_text_with_glossary(
        self, text: str, glossary: deepl.GlossaryInfo, *args: Any, **options: Any
    ) -> deepl.TextResult: ...
    @overload
    def translate_text_with_glossary(
        self, text: Iterable[str], glossary: deepl.GlossaryInfo, *args: Any, **options: Any
    ) -> list[deepl.TextResult]: ...
    def translate_text_with_glossary(
        self, text: str | Iterable[str], glossary: deepl.GlossaryInfo, *args: Any, **options: Any
    ) -> deepl.TextResult | list[deepl.TextResult]:
        return super().translate_text_with_glossary(text, glossary, *args, **options)

    def close(self) -> None:
        deepl.DeepLClient.close(self)  # the library leaves close() unannotated


def official_client(url: str, key: str) -> OfficialClient:
    """A ``deepl.DeepLClient`` on ``url`` that authenticates the way the contract names it."""
    client = OfficialClient(key, server_url=url, send_platform_info=False)
    client.headers = {"Authorization": f"Service-Auth-Key {key}"}
    return client
