"""get_all_schemas() output checked against each provider's published tool-definition shape.

The shapes are written down here as JSON Schemas: OpenAI's function tool
(`{"type": "function", "function": {"name", "description", "parameters"}}`) and
Anthropic's client tool (`{"name", "description", "input_schema"}`); both require an
object schema for the arguments and names matching ^[a-zA-Z0-9_-]{1,64}$.
"""

from __future__ import annotations

import json

import jsonschema
import pytest

import fstools
from fstools._core.params import validate_arguments
from tests.helpers.probes import probe_registry

NAME = {"type": "string", "pattern": "^[a-zA-Z0-9_-]{1,64}$"}
DESCRIPTION = {"type": "string", "minLength": 1}
ARGUMENTS = {
    "type": "object",
    "required": ["type", "properties"],
    "properties": {
        "type": {"const": "object"},
        "properties": {
            "type": "object",
            "additionalProperties": {"type": "object", "required": ["type", "description"]},
        },
        "required": {"type": "array", "items": {"type": "string"}, "uniqueItems": True},
    },
}

OPENAI_TOOL = {
    "type": "object",
    "required": ["type", "function"],
    "additionalProperties": False,
    "properties": {
        "type": {"const": "function"},
        "function": {
            "type": "object",
            "required": ["name", "description", "parameters"],
            "additionalProperties": False,
            "properties": {
                "name": NAME,
                "description": DESCRIPTION,
                "parameters": ARGUMENTS,
                "strict": {"type": "boolean"},
            },
        },
    },
}

ANTHROPIC_TOOL = {
    "type": "object",
    "required": ["name", "description", "input_schema"],
    "additionalProperties": False,
    "properties": {
        "type": {"const": "custom"},
        "name": NAME,
        "description": DESCRIPTION,
        "input_schema": ARGUMENTS,
        "cache_control": {"type": "object"},
    },
}

SAMPLE = {"string": "x", "integer": 1, "number": 1.5, "boolean": True, "object": {}}


def _arguments(schema: dict) -> dict:
    return schema["function"]["parameters"] if "function" in schema else schema["input_schema"]


def _sample(prop: dict):
    if "enum" in prop:
        return prop["enum"][0]
    if prop["type"] == "array":
        item = prop["items"]
        if item["type"] == "object":
            return [{k: _sample(v) for k, v in item["properties"].items() if k in item["required"]}]
        return [_sample(item)]
    return SAMPLE[prop["type"]]


@pytest.mark.parametrize(
    "registry", [fstools.create_registry(journal=True), probe_registry()], ids=["fstools", "probes"]
)
@pytest.mark.parametrize(("provider", "shape"), [("openai", OPENAI_TOOL), ("anthropic", ANTHROPIC_TOOL)])
def test_schemas_match_the_provider_shape(registry, provider, shape):
    schemas = registry.get_all_schemas(provider)
    assert len(schemas) == len(registry)
    jsonschema.Draft202012Validator.check_schema(shape)
    for schema in schemas:
        jsonschema.validate(schema, shape, cls=jsonschema.Draft202012Validator)
        arguments = _arguments(schema)
        jsonschema.Draft202012Validator.check_schema(arguments)
        assert set(arguments["required"]) <= set(arguments["properties"])
        assert json.loads(json.dumps(schema)) == schema


def test_shapes_reject_what_providers_reject():
    good = fstools.create_registry().get_all_schemas("openai")[0]
    bad_name = json.loads(json.dumps(good))
    bad_name["function"]["name"] = "has space"
    not_object = json.loads(json.dumps(good))
    not_object["function"]["parameters"]["type"] = "array"
    for bad in (bad_name, not_object, {"name": "LS", "parameters": {}}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(bad, OPENAI_TOOL)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"name": "LS", "description": "d", "parameters": {}}, ANTHROPIC_TOOL)


@pytest.mark.parametrize(
    "registry", [fstools.create_registry(journal=True), probe_registry()], ids=["fstools", "probes"]
)
def test_schema_and_validation_agree(registry):
    """A call the published schema accepts is one the tool's own validation accepts, and vice versa for extras."""
    for tool in registry.list():
        arguments = _arguments(tool.schema("anthropic"))
        call = {name: _sample(arguments["properties"][name]) for name in arguments["required"]}
        jsonschema.validate(call, arguments, cls=jsonschema.Draft202012Validator)
        validate_arguments(tool.parameters, call)
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**call, "bogus": 1}, arguments, cls=jsonschema.Draft202012Validator)
