"""get_all_schemas for every provider shape, checked with the official SDK types; OpenAI strict mode."""

from __future__ import annotations

import copy

import pytest
from anthropic.types import ToolParam
from openai.lib._pydantic import _ensure_strict_json_schema
from openai.types.chat import ChatCompletionToolParam
from openai.types.responses import FunctionToolParam
from pydantic import TypeAdapter

import fstools
from fstools._core.params import validate_arguments
from tests.helpers.probes import probe_registry

SDK_TYPES = {
    "openai": TypeAdapter(ChatCompletionToolParam),
    "openai-responses": TypeAdapter(FunctionToolParam),
    "anthropic": TypeAdapter(ToolParam),
}
SHAPES = [
    ("openai", False),
    ("openai", True),
    ("openai-responses", False),
    ("openai-responses", True),
    ("anthropic", False),
]
# What OpenAI's strict mode accepts in a schema (Structured Outputs, "supported schemas").
STRICT_KEYWORDS = {
    "type",
    "description",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
}


def registries():
    return [fstools.create_registry(journal=True), probe_registry()]


def arguments(definition: dict) -> dict:
    if "function" in definition:
        return definition["function"]["parameters"]
    return definition.get("parameters") or definition["input_schema"]


def objects(schema: dict):
    """Every object schema in `schema`, nested ones included."""
    if schema.get("type") == "object" or "properties" in schema:
        yield schema
    for prop in schema.get("properties", {}).values():
        yield from objects(prop)
    if isinstance(schema.get("items"), dict):
        yield from objects(schema["items"])
    for sub in schema.get("anyOf", ()):
        yield from objects(sub)


def nodes(schema: dict):
    yield schema
    for prop in schema.get("properties", {}).values():
        yield from nodes(prop)
    if isinstance(schema.get("items"), dict):
        yield from nodes(schema["items"])
    for sub in schema.get("anyOf", ()):
        yield from nodes(sub)


@pytest.mark.parametrize(("provider", "strict"), SHAPES)
def test_every_shape_is_what_the_official_sdk_types_accept(provider, strict):
    for registry in registries():
        for definition in registry.get_all_schemas(provider, strict=strict):
            # Validation keeps only the keys the SDK type knows: equality means no key is unknown or wrong.
            assert SDK_TYPES[provider].validate_python(definition) == definition


def test_shapes_differ_as_the_apis_do():
    tool = fstools.create_registry().get("Read")
    chat, responses, claude = tool.schema("openai"), tool.schema("openai-responses"), tool.schema("anthropic")
    assert chat == {"type": "function", "function": {**{k: v for k, v in responses.items() if k != "type"}}}
    assert responses["type"] == "function" and responses["strict"] is False and responses["name"] == "Read"
    assert claude == {"name": "Read", "description": tool.description, "input_schema": tool.input_schema()}
    assert tool.schema("openai-responses", strict=True)["strict"] is True


@pytest.mark.parametrize("provider", ["openai", "openai-responses"])
def test_strict_schemas_follow_strict_mode(provider):
    for registry in registries():
        for definition in registry.get_all_schemas(provider, strict=True):
            schema = arguments(definition)
            for obj in objects(schema):
                assert obj["required"] == list(obj["properties"]) and obj["additionalProperties"] is False
            for node in nodes(schema):
                assert set(node) <= STRICT_KEYWORDS, set(node) - STRICT_KEYWORDS
            # OpenAI's own strict-schema pass has nothing left to change.
            assert _ensure_strict_json_schema(copy.deepcopy(schema), path=(), root={}) == schema


def test_optional_parameters_become_nullable_and_keep_their_default_in_words():
    tool = fstools.create_registry().get("Grep")
    props = arguments(tool.schema("openai", strict=True))["properties"]
    plain = tool.input_schema()
    assert props["pattern"]["type"] == "string"  # required: not nullable
    assert props["head_limit"]["type"] == ["integer", "null"] and props["head_limit"]["minimum"] == 0
    assert props["head_limit"]["description"].endswith("(default: 100)")
    assert props["output_mode"]["enum"] == ["files_with_matches", "content", "count", None]
    assert props["-i"]["description"].endswith("(default: false)")
    assert "default" in plain["properties"]["head_limit"]  # the non-strict schema still states it
    assert tool.input_schema() == plain  # strict mode works on a copy


def test_a_models_nulls_mean_the_defaults():
    for registry in registries():
        for tool in registry.list():
            props = arguments(tool.schema("openai", strict=True))["properties"]
            required = {p.name: p for p in tool.parameters if p.required}
            given = {name: _sample(p) for name, p in required.items()}
            nulls = {name: None for name in props if name not in required}
            assert validate_arguments(tool.parameters, {**given, **nulls}) == validate_arguments(tool.parameters, given)


def _sample(p):
    if p.type == "array":
        return [{i.name: "x" for i in p.items if i.required}] if p.items else ["x"]
    return {"string": "x", "integer": 1, "number": 1.0, "boolean": True, "object": {}}[p.type]


def test_a_strict_call_with_nulls_runs(project, ctx):
    (project / "a.txt").write_text("one\ntwo\n")
    registry = fstools.create_registry()
    call = {name: None for name in arguments(registry.get("Read").schema("openai", strict=True))["properties"]}
    r = registry.run("Read", ctx, **{**call, "file_path": str(project / "a.txt")})
    assert r.success and r.metadata["offset"] == 1 and r.metadata["limit"] == 2000
    edit = {"old_string": "one", "new_string": "ONE", "replace_all": None}
    m = registry.run("MultiEdit", ctx, file_path=str(project / "a.txt"), edits=[edit])
    assert m.success and (project / "a.txt").read_text() == "ONE\ntwo\n"


def test_unknown_providers_and_strict_anthropic_are_value_errors():
    registry = fstools.create_registry()
    with pytest.raises(ValueError, match="unknown schema provider 'gemini'"):
        registry.get_all_schemas("gemini")
    with pytest.raises(ValueError, match="OpenAI strict-mode"):
        registry.get_all_schemas("anthropic", strict=True)


def test_strict_schema_handles_hand_written_shapes():
    """A BaseTool may write its own input_schema: unions, type lists and nested objects become strict too."""
    from fstools._core.schemas import strict_schema

    schema = {
        "type": "object",
        "properties": {
            "when": {"description": "a date or a count", "anyOf": [{"type": "string"}, {"type": "integer"}]},
            "maybe": {"type": ["string", "null"], "description": "already nullable"},
            "both": {"type": ["string", "integer"], "description": "two types", "default": 3},
            "opts": {"type": "object", "properties": {"x": {"type": "integer", "description": "x", "default": 1}}},
        },
        "required": [],
    }
    strict = strict_schema(schema)
    props = strict["properties"]
    assert props["when"] == {
        "description": "a date or a count",
        "anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}],
    }
    untyped = strict_schema({"type": "object", "properties": {"any": {"description": "anything", "enum": [1, "a"]}}})
    assert untyped["properties"]["any"] == {"description": "anything", "anyOf": [{"enum": [1, "a"]}, {"type": "null"}]}
    assert props["maybe"]["type"] == ["string", "null"]
    assert props["both"] == {"type": ["string", "integer", "null"], "description": "two types (default: 3)"}
    assert props["opts"]["required"] == ["x"] and props["opts"]["additionalProperties"] is False
    assert props["opts"]["properties"]["x"]["type"] == ["integer", "null"]
    assert strict["required"] == ["when", "maybe", "both", "opts"] and schema["required"] == []
    assert _ensure_strict_json_schema(copy.deepcopy(strict), path=(), root={}) == strict


def test_result_fields_take_json_types_only():
    from fstools._core.outputs import ResultField

    with pytest.raises(ValueError, match="unknown result field type"):
        ResultField("n", ("integer", "int"), "a count")
