"""Bad input never crashes the app: every answer below 500, in the JSON error shape."""

from __future__ import annotations

import json
from urllib.parse import urlencode

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.protocol import TRANSLATE_BOOL_PARAMS, TRANSLATE_LIST_PARAMS
from tests.unit.service.conftest import Headers, InProcess

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True),
    st.text(max_size=20),
    st.sampled_from(
        [
            "DE",
            "en-us",
            "xml",
            "html",
            "v2",
            "1",
            "0",
            "latency_optimized",
            "prefer_more",
            "nonewlines",
            "\ud800",
            "x,y",
            "",
        ]
    ),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
NAMES = [
    *TRANSLATE_LIST_PARAMS,
    *TRANSLATE_BOOL_PARAMS,
    "source_lang",
    "target_lang",
    "context",
    "model_type",
    "split_sentences",
    "formality",
    "glossary_id",
    "style_id",
    "translation_memory_id",
    "translation_memory_threshold",
    "tag_handling",
    "tag_handling_version",
]


def assert_clean(response: httpx.Response) -> None:
    assert response.status_code < 500, response.text
    if response.status_code >= 400:
        assert list(response.json()) == ["message"]


@settings(max_examples=300, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(body=st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=8))
def test_translate_survives_any_json_object(client: InProcess, headers: type[Headers], body: dict[str, object]) -> None:
    content = json.dumps(body).encode()
    response = client.post(
        "/v2/translate", content=content, headers={**headers.paid, "Content-Type": "application/json"}
    )
    assert_clean(response)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(pairs=st.lists(st.tuples(st.sampled_from(NAMES), st.text(max_size=12)), max_size=8))
def test_translate_survives_any_form(client: InProcess, headers: type[Headers], pairs: list[tuple[str, str]]) -> None:
    response = client.post(
        "/v2/translate",
        content=urlencode(pairs).encode(),
        headers={**headers.paid, "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert_clean(response)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    body=st.dictionaries(
        st.sampled_from(["key_id", "label", "characters", "speech_to_text_milliseconds"]), VALUES, max_size=4
    ),
    path=st.sampled_from(["deactivate", "label", "limits"]),
)
def test_admin_survives_any_json_object(
    client: InProcess, headers: type[Headers], body: dict[str, object], path: str
) -> None:
    response = client.put(
        f"/v2/admin/developer-keys/{path}",
        content=json.dumps(body).encode(),
        headers={**headers.admin, "Content-Type": "application/json"},
    )
    assert_clean(response)


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture], deadline=None)
@given(
    query=st.lists(
        st.tuples(
            st.sampled_from(["start_date", "end_date", "aggregate_by", "page", "resource", "include", "type"]),
            st.text(max_size=12),
        ),
        max_size=5,
    )
)
def test_query_endpoints_survive_any_query(
    client: InProcess, headers: type[Headers], query: list[tuple[str, str]]
) -> None:
    assert_clean(client.get("/v2/admin/analytics/custom-tags", params=query, headers=headers.admin))
    assert_clean(client.get("/v3/languages", params=query, headers=headers.paid))
    assert_clean(client.get("/v2/languages", params=query, headers=headers.paid))


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"null",
        b"{",
        b"\xff",
        b'{"text": ["\\ud800"], "target_lang": "DE"}',
        b"[" * 5000 + b"]" * 5000,
        b'{"text": [' + b"[" * 990 + b"]" * 990 + b'], "target_lang": "DE"}',
        b'{"text": ["a"], "target_lang": "DE", "x": "\\u0000"}',
    ],
)
def test_raw_bodies(client: InProcess, headers: type[Headers], raw: bytes) -> None:
    response = client.post("/v2/translate", content=raw, headers={**headers.paid, "Content-Type": "application/json"})
    assert_clean(response)
    assert response.status_code in (200, 400)


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "chunk", ["<!--", "<![CDATA[", "<?", "<!D", '<a "', "<a b='x", "<a", "&#1", '<x id="1"/> ', 'a. <x id="1"/> ']
)
def test_hostile_markup_is_handled_in_linear_time(client: InProcess, headers: type[Headers], chunk: str) -> None:
    text = chunk * (100_000 // len(chunk))
    body = {"text": [text], "source_lang": "EN", "target_lang": "DE", "tag_handling": "xml", "ignore_tags": ["x"]}
    response = client.post("/v2/translate", json=body, headers={**headers.paid, "X-Test-Fault": "mangle=move"})
    assert response.status_code == 200
