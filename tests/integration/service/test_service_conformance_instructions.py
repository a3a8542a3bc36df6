"""Custom instructions over HTTP: a visible variant keyed by the instructions, and length limits kept exactly."""

from __future__ import annotations

from collections.abc import Callable

import httpx
import pytest

from tests.integration.service.conftest import Keys

pytestmark = pytest.mark.integration

TRANSLATE = "/v2/translate"
TEXT = "I am testing if custom instructions are working correctly."


@pytest.fixture
def translate(http: httpx.Client, keys: Keys) -> Callable[..., list[str]]:
    """The translated texts of a JSON translate body sent with the paid key."""

    def post(**body: object) -> list[str]:
        response = http.post(TRANSLATE, json={"target_lang": "DE", **body}, headers=keys.paid)
        assert response.status_code == 200, response.text
        return [t["text"] for t in response.json()["translations"]]

    return post


def test_instructions_give_a_visible_variant_keyed_by_the_instructions(translate: Callable[..., list[str]]) -> None:
    plain = translate(text=[TEXT])
    informal = translate(text=[TEXT], custom_instructions=["Use informal language", "Be concise"])
    assert informal == translate(text=[TEXT], custom_instructions=["Use informal language", "Be concise"])
    assert informal != plain
    variants = {tuple(translate(text=[TEXT], custom_instructions=[f"Instruction {n}"])) for n in range(12)}
    assert len(variants) > 1


@pytest.mark.parametrize(
    "instruction",
    [
        "Translate in at most 30 characters.",
        "No more than 30 characters",
        "MAXIMUM 30 CHARACTERS",
        "max. 30 characters",
        "Keep it shorter than 31 characters",
    ],
)
def test_a_length_instruction_is_kept_for_every_text(translate: Callable[..., list[str]], instruction: str) -> None:
    texts = [TEXT, "Short", "Another sentence that is clearly longer than thirty characters."]
    out = translate(text=texts, custom_instructions=[instruction], source_lang="EN")
    assert [len(t) <= 30 for t in out] == [True, True, True]
    assert (
        out[0].split()[:3] == translate(text=[TEXT], custom_instructions=[instruction], source_lang="EN")[0].split()[:3]
    )
    unlimited = translate(text=texts, custom_instructions=["Be concise"], source_lang="EN")
    assert len(unlimited[0]) > 30 and len(unlimited[2]) > 30  # the limit, not the text, made them short


def test_a_length_limit_keeps_markup_and_ignored_content_whole(translate: Callable[..., list[str]]) -> None:
    text = '<p>Open <b>the</b> file <x id="1"/> and <keep>do not touch</keep> it now, please.</p>'
    [out] = translate(
        text=[text],
        source_lang="EN",
        tag_handling="xml",
        ignore_tags=["keep"],
        custom_instructions=["at most 60 characters"],
    )
    assert len(out) <= 60
    assert (
        out.startswith("<p>")
        and not out.startswith("<p><")
        and out.endswith('<x id="1"/><keep>do not touch</keep></p>')
    )
    assert "<b>" in out and "</b>" in out
    [tags_only] = translate(
        text=[text], source_lang="EN", tag_handling="xml", ignore_tags=["keep"], custom_instructions=["at most 5 chars"]
    )
    assert tags_only == '<p><b></b><x id="1"/><keep>do not touch</keep></p>'


def test_a_style_rule_lists_length_instruction_applies(
    http: httpx.Client, keys: Keys, translate: Callable[..., list[str]]
) -> None:
    body = {"name": "limits", "language": "de", "custom_instructions": [{"label": "l", "prompt": "max 12 characters"}]}
    style_id = http.post("/v3/style_rules", json=body, headers=keys.paid).json()["style_id"]
    try:
        [out] = translate(text=[TEXT], source_lang="EN", style_id=style_id)
        assert 0 < len(out) <= 12
    finally:
        http.delete(f"/v3/style_rules/{style_id}", headers=keys.paid)
