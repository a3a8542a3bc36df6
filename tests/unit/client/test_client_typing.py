"""The two client shells offer the same methods, and type checkers see the async ones return coroutines."""

from __future__ import annotations

import ast
import inspect
import textwrap
from pathlib import Path

from pipeline.client import stubgen
from pipeline.client.aio import AsyncClient
from pipeline.client.sync import Client


def public(cls: type) -> set[str]:
    return {name for name, value in inspect.getmembers(cls) if not name.startswith("_") and callable(value)}


def test_the_async_stub_is_the_one_generated_from_the_endpoint_methods() -> None:
    assert stubgen.STUB.read_text(encoding="utf-8") == stubgen.render(), (
        "pipeline/client/aio_endpoints.pyi is stale: run python -m pipeline.client.stubgen"
    )


def test_both_shells_and_the_stub_offer_the_same_methods() -> None:
    stub = ast.parse(stubgen.STUB.read_text(encoding="utf-8"))
    (cls,) = [node for node in stub.body if isinstance(node, ast.ClassDef)]
    in_stub = {node.name for node in cls.body if isinstance(node, ast.FunctionDef)}
    shared = {name for name, _ in stubgen.endpoint_methods()}
    assert in_stub == shared
    # What each shell adds by hand: closing, the paging iterator, and a view with another retry policy.
    assert public(Client) - shared == {"close", "iter_custom_tag_usage", "with_retry"}
    assert public(AsyncClient) - shared == {"aclose", "iter_custom_tag_usage", "with_pacing", "with_retry"}
    assert shared <= public(Client) and shared <= public(AsyncClient)


def test_each_async_stub_method_takes_the_same_parameters_as_the_shared_method() -> None:
    stub = ast.parse(stubgen.STUB.read_text(encoding="utf-8"))
    methods = {node.name: node for node in ast.walk(stub) if isinstance(node, ast.FunctionDef)}
    for name, function in stubgen.endpoint_methods():
        args = methods[name].args
        declared = [a.arg for a in (*args.args, *args.kwonlyargs)]
        assert declared == list(inspect.signature(function).parameters), name
        returns = methods[name].returns
        assert returns is not None, name
        returned = ast.unparse(returns)
        assert returned == f"Coroutine[Any, Any, {inspect.signature(function).return_annotation}]", name


def test_mypy_sees_results_from_client_and_coroutines_from_async_client(tmp_path: Path) -> None:
    from mypy import api

    probe = tmp_path / "probe.py"
    probe.write_text(
        textwrap.dedent("""
        import asyncio
        from typing import assert_type
        from pipeline.client.aio import AsyncClient
        from pipeline.client.sync import Client
        from pipeline.client.api_data import Glossary, TranslateResult

        def sync_use(client: Client) -> None:
            assert_type(client.translate(["a"], target_lang="DE"), TranslateResult)

        async def async_use(client: AsyncClient) -> None:
            assert_type(await client.translate(["a"], target_lang="DE"), TranslateResult)
            assert_type(await client.get_glossary("g"), Glossary)
            task = asyncio.create_task(client.usage())
            await task
            wrong: TranslateResult = client.translate(["a"], target_lang="DE")
    """),
        encoding="utf-8",
    )
    out, _, status = api.run(["--no-incremental", "--follow-imports=silent", "--cache-dir=/dev/null", str(probe)])
    errors = [line for line in out.splitlines() if ": error:" in line]
    assert status == 1 and len(errors) == 1 and "probe.py:16:" in errors[0] and "Coroutine" in errors[0], out
