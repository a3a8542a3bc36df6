"""``http.form_object``: a URL-encoded form read as the JSON object it stands for."""

from __future__ import annotations

import urllib.parse

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.service.http.form_object import form_object
from pipeline.service.http.responses import ApiError


def encoded(pairs: list[tuple[str, str]]) -> bytes:
    return urllib.parse.urlencode(pairs).encode()


def test_plain_and_indexed_fields_become_an_object_with_a_list() -> None:
    body = encoded(
        [
            ("name", "my glossary"),
            ("dictionaries[0].source_lang", "en"),
            ("dictionaries[0].entries", "a\tb\nc d\te"),
            ("dictionaries[1][source_lang]", "de"),
        ]
    )
    assert form_object(body) == {
        "name": "my glossary",
        "dictionaries": [{"source_lang": "en", "entries": "a\tb\nc d\te"}, {"source_lang": "de"}],
    }


def test_an_empty_form_is_an_empty_object() -> None:
    assert form_object(b"") == {}


@pytest.mark.parametrize(
    ("pairs", "message"),
    [
        ([("d[0].a", "1"), ("d[2].a", "2")], "form fields d[N] must be numbered from 0 without gaps; d[1] is missing"),
        ([("d[999999].a", "1")], "d[0] is missing"),
        ([("name", "a"), ("name", "b")], "form field 'name' may be given only once"),
        ([("d[0].a", "1"), ("d[0][a]", "2")], "form field 'd[0][a]' is given twice"),
        ([("d", "x"), ("d[0].a", "1")], "form field 'd' is given both plain and indexed"),
    ],
)
def test_broken_rules_are_400_naming_the_field(pairs: list[tuple[str, str]], message: str) -> None:
    with pytest.raises(ApiError) as caught:
        form_object(encoded(pairs))
    assert caught.value.status == 400 and message in caught.value.message


def test_a_huge_index_is_refused_without_building_a_list() -> None:
    with pytest.raises(ApiError, match="d\\[0\\] is missing"):
        form_object(b"d[999999].a=1")


@pytest.mark.parametrize("key", ["d[1000000].a", "d[-1].a", "d[][a]", "d[0]a", "d[0].a-b", "d]", "[0].a"])
def test_a_bracketed_field_outside_the_grammar_is_400_not_a_plain_field(key: str) -> None:
    """Read as an unknown plain field, the element it carries was dropped and the request succeeded."""
    with pytest.raises(ApiError) as caught:
        form_object(encoded([(key, "1")]))
    assert caught.value.status == 400 and repr(key) in caught.value.message


FIELD = st.from_regex(r"[a-z_]{1,8}", fullmatch=True)
VALUE = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30)


@given(st.dictionaries(FIELD, VALUE, max_size=3), st.lists(st.dictionaries(FIELD, VALUE, min_size=1, max_size=4)))
def test_the_node_clients_encoding_reads_back_as_its_json_twin(
    plain: dict[str, str], dictionaries: list[dict[str, str]]
) -> None:
    """``appendDictionaryEntries`` writes ``dictionaries[i].field``; reading it gives the JSON body back."""
    plain.pop("dictionaries", None)
    pairs = list(plain.items())
    for index, dictionary in enumerate(dictionaries):
        pairs += [(f"dictionaries[{index}].{field}", value) for field, value in dictionary.items()]
    expected: dict[str, object] = dict(plain)
    if dictionaries:
        expected["dictionaries"] = dictionaries
    assert form_object(encoded(pairs)) == expected
