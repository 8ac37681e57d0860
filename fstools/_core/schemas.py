"""A tool's definition in the shape each provider's API takes, and OpenAI's strict-mode schemas.

Strict mode (OpenAI Structured Outputs for function calls) constrains what the model may
emit to the schema, and accepts only a subset of JSON Schema: every property listed in
`required`, `additionalProperties: false` on every object, and none of the keywords it
does not support (`default` among them). An optional parameter therefore becomes a
required one that may be null, and the argument validation counts null as absent: the
model's null means "use the default", which the description states in words.
"""

from __future__ import annotations

import copy
from typing import Any

SCHEMA_PROVIDERS = ("openai", "openai-responses", "anthropic")
# Keywords strict mode refuses (it keeps type, enum, description, bounds, items, properties).
_UNSUPPORTED = (
    "default",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "uniqueItems",
    "contains",
    "minContains",
    "maxContains",
    "unevaluatedItems",
)


def _nullable(prop: dict[str, Any]) -> dict[str, Any]:
    """`prop` that also accepts null (what a model sends for "not given")."""
    kind = prop.get("type")
    if kind is None and isinstance(prop.get("anyOf"), list):
        if {"type": "null"} not in prop["anyOf"]:
            prop["anyOf"] = [*prop["anyOf"], {"type": "null"}]
        return prop
    if kind is None:
        rest = {k: v for k, v in prop.items() if k != "description"}
        described = {"description": prop["description"]} if "description" in prop else {}
        return {**described, "anyOf": [rest, {"type": "null"}]}
    if isinstance(kind, str):
        prop["type"] = [kind, "null"]
    elif "null" not in kind:
        prop["type"] = [*kind, "null"]
    if "enum" in prop and None not in prop["enum"]:
        prop["enum"] = [*prop["enum"], None]
    return prop


def _strict(node: dict[str, Any]) -> dict[str, Any]:
    """One schema node made strict, in place, with its sub-schemas."""
    default = node.get("default")
    if default is not None and "(default" not in node.get("description", "(default"):
        node["description"] = f"{node['description']} (default: {_literal(default)})"
    for keyword in _UNSUPPORTED:
        node.pop(keyword, None)
    if isinstance(node.get("items"), dict):
        node["items"] = _strict(node["items"])
    for key in ("anyOf", "oneOf", "allOf"):
        if isinstance(node.get(key), list):
            node[key] = [_strict(sub) for sub in node[key]]
    properties = node.get("properties")
    if isinstance(properties, dict):
        required = set(node.get("required", ()))
        node["properties"] = {
            name: _strict(prop) if name in required else _nullable(_strict(prop)) for name, prop in properties.items()
        }
        node["required"] = list(properties)
        node["additionalProperties"] = False
    return node


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def strict_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """A copy of the argument schema `schema` valid for OpenAI's strict mode."""
    return _strict(copy.deepcopy(schema))


def tool_definition(
    name: str, description: str, arguments: dict[str, Any], provider: str, *, strict: bool = False
) -> dict[str, Any]:
    """The tool as `provider`'s API declares one: "openai" (Chat Completions), "openai-responses", "anthropic"."""
    if provider not in SCHEMA_PROVIDERS:
        raise ValueError(f"unknown schema provider {provider!r}; use one of {', '.join(SCHEMA_PROVIDERS)}")
    if provider == "anthropic":
        if strict:
            raise ValueError(
                "strict=True gives OpenAI strict-mode schemas; use provider 'openai' or 'openai-responses'"
            )
        return {"name": name, "description": description, "input_schema": arguments}
    parameters = strict_schema(arguments) if strict else arguments
    function = {"name": name, "description": description, "parameters": parameters, "strict": strict}
    if provider == "openai-responses":
        return {"type": "function", **function}
    return {"type": "function", "function": function}
