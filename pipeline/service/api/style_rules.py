"""Style rule lists: the ten ``/v3/style_rules`` endpoints (paid tier only; free keys get 403).

Status codes: both creations (list, instruction) answer 201, reads and changes 200, both deletes
204 with an empty body. A list or instruction the account does not have is 404 (another
account's ids included); a broken rule is 400 naming the field and the limit. Times are UTC with
milliseconds. ``language`` is accepted in any case and answered in lower case.

Configured rules: the spec does not show the full set of categories, rules and options, so any
``category -> rule -> option`` object of non-empty strings is accepted and stored as given. The
pseudo engine applies the mechanical punctuation rules among them (see ``engine.style_apply``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from pipeline.protocol import (
    MAX_STYLE_INSTRUCTION_LABEL_CHARS,
    MAX_STYLE_INSTRUCTION_PROMPT_CHARS,
    MAX_STYLE_INSTRUCTIONS,
    MAX_STYLE_LIST_NAME_CHARS,
    STYLE_LANGUAGES,
    STYLE_PAGE_SIZE_DEFAULT,
    STYLE_PAGE_SIZE_MAX,
    STYLE_PAGE_SIZE_MIN,
)
from pipeline.service import languages
from pipeline.service.echo import echo
from pipeline.service.http.auth import Access, Caller, guarded
from pipeline.service.http.json_body import read_json_object
from pipeline.service.http.params import int_query, single_query
from pipeline.service.http.responses import ApiError, bad_request, found, json_response, no_content
from pipeline.service.http.timestamps import iso_millis
from pipeline.service.state import resources_of, service_of
from pipeline.service.store.styles import Instruction, Rules, StyleList, instruction_json, new_instruction

#: Style bodies are small: 200 instructions of 400 characters are well under this.
BODY_LIMIT = 1024 * 1024


def style_json(style: StyleList, detailed: bool = True) -> dict[str, Any]:
    """A style rule list as the API shows it; rules and instructions only when ``detailed``."""
    body: dict[str, Any] = {
        "style_id": style.style_id,
        "name": style.name,
        "creation_time": iso_millis(style.created_ms),
        "updated_time": iso_millis(style.updated_ms),
        "language": style.language,
        "version": style.version,
    }
    if detailed:
        body["configured_rules"] = style.configured_rules
        body["custom_instructions"] = [instruction_json(i) for i in style.instructions]
    return body


def _name(value: object) -> str:
    if not isinstance(value, str) or not value.strip():
        raise bad_request("'name' is required and must be a non-empty string")
    if len(value) > MAX_STYLE_LIST_NAME_CHARS:
        raise bad_request(f"'name' has {len(value)} characters; at most {MAX_STYLE_LIST_NAME_CHARS} are allowed")
    return value


def _language(value: object) -> str:
    found = languages.entry("style_rules", value) if isinstance(value, str) else None
    if found is None:
        raise bad_request(f"'language' is required and must be one of {', '.join(STYLE_LANGUAGES)}; got {echo(value)}")
    return found.language.code


def configured_rules(value: object) -> Rules:
    """A ``category -> rule -> option`` object of non-empty strings (400 naming the bad entry)."""
    if not isinstance(value, dict):
        raise bad_request("configured_rules must be an object: category -> rule -> option")
    rules: Rules = {}
    for category, chosen in value.items():
        if not category.strip() or not isinstance(chosen, dict):
            raise bad_request(
                f"configured_rules[{echo(category)}] must be a non-empty category name mapping to an object"
            )
        for rule, option in chosen.items():
            if not rule.strip() or not isinstance(option, str) or not option.strip():
                raise bad_request(
                    f"configured_rules.{category}.{rule} must be a non-empty rule name with a string option"
                )
        rules[category] = dict(chosen)
    return rules


def _text(body: dict[str, Any], field: str, limit: int, where: str) -> str:
    value = body.get(field)
    if not isinstance(value, str) or not value.strip():
        raise bad_request(f"{where}: '{field}' is required and must be a non-empty string")
    if len(value) > limit:
        raise bad_request(f"{where}: '{field}' has {len(value)} characters; at most {limit} are allowed")
    return value


def instruction_from(body: object, where: str) -> Instruction:
    """A new custom instruction from a request object (400 on a broken limit)."""
    if not isinstance(body, dict):
        raise bad_request(f"{where} must be an object with label, prompt and optionally source_language")
    label = _text(body, "label", MAX_STYLE_INSTRUCTION_LABEL_CHARS, where)
    prompt = _text(body, "prompt", MAX_STYLE_INSTRUCTION_PROMPT_CHARS, where)
    source = body.get("source_language")
    if source is not None:
        lang = languages.find(source) if isinstance(source, str) else None
        if lang is None:
            raise bad_request(f"{where}: 'source_language' {echo(source)} is not a supported language code")
        source = lang.code
    return new_instruction(label, prompt, source)


def _too_many(count: int) -> ApiError:
    return bad_request(f"{count} custom instructions; a style rule list holds at most {MAX_STYLE_INSTRUCTIONS}")


def _missing(style_id: str) -> ApiError:
    return ApiError(404, f"style rule list {echo(style_id)} not found")


def _instruction_missing(style_id: str, instruction_id: str) -> ApiError:
    return ApiError(404, f"custom instruction {echo(instruction_id)} not found in style rule list {echo(style_id)}")


def _bool_query(request: Request, name: str) -> bool:
    raw = single_query(request, name, required=False)
    if raw is None:
        return False
    if raw.lower() in ("true", "1"):
        return True
    if raw.lower() in ("false", "0"):
        return False
    raise bad_request(f"query parameter '{name}' must be true or false, got {echo(raw)}")


@guarded(Access.PAID_DEVELOPER)
async def create_style(request: Request, caller: Caller) -> Response:
    """``POST /v3/style_rules``."""
    body = await read_json_object(request, BODY_LIMIT)
    name, language = _name(body.get("name")), _language(body.get("language"))
    rules = {} if body.get("configured_rules") is None else configured_rules(body["configured_rules"])
    items = [] if body.get("custom_instructions") is None else body["custom_instructions"]
    if not isinstance(items, list):
        raise bad_request("'custom_instructions' must be an array of objects")
    if len(items) > MAX_STYLE_INSTRUCTIONS:
        raise _too_many(len(items))
    instructions = tuple(instruction_from(item, f"custom_instructions[{n}]") for n, item in enumerate(items, 1))
    store = resources_of(request).styles
    style = store.create(caller.account.account_id, name, language, rules, instructions, service_of(request).now_ms())
    return json_response(style_json(style), status=201)


@guarded(Access.PAID_DEVELOPER)
async def list_styles(request: Request, caller: Caller) -> Response:
    """``GET /v3/style_rules?detailed=&page=&page_size=``."""
    detailed = _bool_query(request, "detailed")
    page = int_query(request, "page", 0, 0, None)
    size = int_query(request, "page_size", STYLE_PAGE_SIZE_DEFAULT, STYLE_PAGE_SIZE_MIN, STYLE_PAGE_SIZE_MAX)
    styles = resources_of(request).styles.page(caller.account.account_id, page, size)
    return json_response({"style_rules": [style_json(s, detailed) for s in styles]})


@guarded(Access.PAID_DEVELOPER)
async def get_style(request: Request, caller: Caller) -> Response:
    """``GET /v3/style_rules/{style_id}``."""
    style_id = request.path_params["style_id"]
    style = found(resources_of(request).styles.get(caller.account.account_id, style_id), _missing(style_id))
    return json_response(style_json(style))


async def _change(request: Request, caller: Caller, edit: Callable[[StyleList], StyleList]) -> StyleList:
    style_id = request.path_params["style_id"]
    store = resources_of(request).styles
    changed = store.change(caller.account.account_id, style_id, service_of(request).now_ms(), edit)
    return found(changed, _missing(style_id))


@guarded(Access.PAID_DEVELOPER)
async def rename_style(request: Request, caller: Caller) -> Response:
    """``PATCH /v3/style_rules/{style_id}``: a new name."""
    body = await read_json_object(request, BODY_LIMIT)
    name = _name(body.get("name"))
    style = await _change(request, caller, lambda s: s._replace(name=name))
    return json_response(style_json(style))


@guarded(Access.PAID_DEVELOPER)
async def replace_rules(request: Request, caller: Caller) -> Response:
    """``PUT /v3/style_rules/{style_id}/configured_rules``: the whole set; instructions unaffected."""
    body = await read_json_object(
        request, BODY_LIMIT, "the configured rules object (category -> rule -> option; {} clears them)"
    )
    rules = configured_rules(body)
    style = await _change(request, caller, lambda s: s._replace(configured_rules=rules))
    return json_response(style_json(style))


@guarded(Access.PAID_DEVELOPER)
async def delete_style(request: Request, caller: Caller) -> Response:
    """``DELETE /v3/style_rules/{style_id}``: 204, or 404 when missing."""
    style_id = request.path_params["style_id"]
    return no_content(resources_of(request).styles.delete(caller.account.account_id, style_id), _missing(style_id))


@guarded(Access.PAID_DEVELOPER)
async def add_instruction(request: Request, caller: Caller) -> Response:
    """``POST /v3/style_rules/{style_id}/custom_instructions``: the whole list, plus the new instruction's fields.

    The contract answers the full updated list (the new instruction, with its id, inside
    ``custom_instructions``); the official clients read ``id``, ``label`` and ``prompt`` of the new
    instruction from the top level. No list field has those names, so one answer carries both
    (docs/local-service-resources.md).
    """
    instruction = instruction_from(await read_json_object(request, BODY_LIMIT), "the custom instruction")

    def edit(style: StyleList) -> StyleList:
        if len(style.instructions) >= MAX_STYLE_INSTRUCTIONS:
            raise _too_many(len(style.instructions) + 1)
        return style._replace(instructions=(*style.instructions, instruction))

    updated = style_json(await _change(request, caller, edit))
    return json_response({**updated, **instruction_json(instruction)}, status=201)


def _find(style: StyleList, instruction_id: str) -> Instruction | None:
    return next((i for i in style.instructions if i.id == instruction_id), None)


@guarded(Access.PAID_DEVELOPER)
async def get_instruction(request: Request, caller: Caller) -> Response:
    """``GET /v3/style_rules/{style_id}/custom_instructions/{instruction_id}``."""
    style_id, instruction_id = request.path_params["style_id"], request.path_params["instruction_id"]
    style = found(resources_of(request).styles.get(caller.account.account_id, style_id), _missing(style_id))
    instruction = found(_find(style, instruction_id), _instruction_missing(style_id, instruction_id))
    return json_response(instruction_json(instruction))


@guarded(Access.PAID_DEVELOPER)
async def replace_instruction(request: Request, caller: Caller) -> Response:
    """``PUT .../custom_instructions/{instruction_id}``: label, prompt and source_language replaced."""
    style_id, instruction_id = request.path_params["style_id"], request.path_params["instruction_id"]
    fresh = instruction_from(await read_json_object(request, BODY_LIMIT), "the custom instruction")
    replacement = fresh._replace(id=instruction_id)

    def edit(style: StyleList) -> StyleList:
        if _find(style, instruction_id) is None:
            raise _instruction_missing(style_id, instruction_id)
        return style._replace(
            instructions=tuple(replacement if i.id == instruction_id else i for i in style.instructions)
        )

    await _change(request, caller, edit)
    return json_response(instruction_json(replacement))


@guarded(Access.PAID_DEVELOPER)
async def delete_instruction(request: Request, caller: Caller) -> Response:
    """``DELETE .../custom_instructions/{instruction_id}``: 204, or 404 when missing."""
    style_id, instruction_id = request.path_params["style_id"], request.path_params["instruction_id"]

    def edit(style: StyleList) -> StyleList:
        if _find(style, instruction_id) is None:
            raise _instruction_missing(style_id, instruction_id)
        return style._replace(instructions=tuple(i for i in style.instructions if i.id != instruction_id))

    await _change(request, caller, edit)
    return Response(status_code=204)


_ONE = "/style_rules/{style_id}"
_INSTRUCTION = _ONE + "/custom_instructions/{instruction_id}"
routes = [
    Route("/style_rules", create_style, methods=["POST"]),
    Route("/style_rules", list_styles, methods=["GET"]),
    Route(_ONE, get_style, methods=["GET"]),
    Route(_ONE, rename_style, methods=["PATCH"]),
    Route(_ONE, delete_style, methods=["DELETE"]),
    Route(_ONE + "/configured_rules", replace_rules, methods=["PUT"]),
    Route(_ONE + "/custom_instructions", add_instruction, methods=["POST"]),
    Route(_INSTRUCTION, get_instruction, methods=["GET"]),
    Route(_INSTRUCTION, replace_instruction, methods=["PUT"]),
    Route(_INSTRUCTION, delete_instruction, methods=["DELETE"]),
]
