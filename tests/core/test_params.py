"""Argument validation: required, types, bounds, enums, unknown names and model-style coercion."""

from __future__ import annotations

import pytest

from fstools._core.errors import ErrorCode, ToolError
from fstools._core.params import ToolParameter, object_schema, validate_arguments

PARAMS = [
    ToolParameter("file_path", "string", "path", required=True),
    ToolParameter("offset", "integer", "start", default=1, minimum=1),
    ToolParameter("limit", "integer", "count", default=2000, minimum=1, maximum=10000),
    ToolParameter("-i", "boolean", "ignore case", default=False, py_name="case_insensitive"),
    ToolParameter("mode", "string", "mode", default="a", enum=["a", "b"]),
    ToolParameter("ratio", "number", "ratio"),
    ToolParameter("globs", "array", "globs"),
    ToolParameter("opts", "object", "options"),
    ToolParameter(
        "edits",
        "array",
        "edits",
        items=[
            ToolParameter("old_string", "string", "old", required=True),
            ToolParameter("replace_all", "boolean", "all", default=False),
        ],
    ),
]


def check(**args):
    return validate_arguments(PARAMS, args)


def error(**args) -> ToolError:
    with pytest.raises(ToolError) as info:
        check(**args)
    assert info.value.code == ErrorCode.INVALID_ARGUMENT
    return info.value


def test_defaults_filled_and_keywords_mapped():
    out = check(file_path="/x")
    assert out == {
        "file_path": "/x",
        "offset": 1,
        "limit": 2000,
        "case_insensitive": False,
        "mode": "a",
        "ratio": None,
        "globs": None,
        "opts": None,
        "edits": None,
    }


def test_missing_required():
    assert "Missing required parameter: file_path" in error().message


def test_none_counts_as_absent():
    assert check(file_path="/x", offset=None)["offset"] == 1
    assert "Missing required" in error(file_path=None).message


def test_unknown_parameter_named_with_valid_list():
    msg = error(file_path="/x", bogus=1).message
    assert "Unknown parameter(s): bogus" in msg and "file_path" in msg


@pytest.mark.parametrize(
    "raw,expected",
    [
        ("true", True),
        ("True", True),
        ("1", True),
        ("yes", True),
        ("false", False),
        ("0", False),
        ("no", False),
        (1, True),
        (0, False),
    ],
)
def test_boolean_coercion(raw, expected):
    assert check(file_path="/x", **{"-i": raw})["case_insensitive"] is expected


@pytest.mark.parametrize("raw", ["maybe", 2, 1.5, []])
def test_boolean_rejects(raw):
    assert "expected a boolean" in error(file_path="/x", **{"-i": raw}).message


@pytest.mark.parametrize("raw,expected", [("5", 5), (" 7 ", 7), (5.0, 5), (9, 9)])
def test_integer_coercion(raw, expected):
    assert check(file_path="/x", offset=raw)["offset"] == expected


@pytest.mark.parametrize("raw", ["five", 2.5, True, "1e3"])
def test_integer_rejects(raw):
    assert "expected an integer" in error(file_path="/x", offset=raw).message


def test_number_coercion_and_rejects():
    assert check(file_path="/x", ratio="0.5")["ratio"] == 0.5
    assert check(file_path="/x", ratio=2)["ratio"] == 2
    assert "expected a number" in error(file_path="/x", ratio="nan").message
    assert "expected a number" in error(file_path="/x", ratio=True).message


def test_string_type():
    assert "expected a string" in error(file_path=5).message


def test_minimum_and_maximum():
    assert "must be >= 1" in error(file_path="/x", offset=0).message
    assert "must be <= 10000" in error(file_path="/x", limit="10001").message
    assert check(file_path="/x", limit=10000)["limit"] == 10000


def test_enum():
    assert "must be one of a, b" in error(file_path="/x", mode="c").message


def test_array_from_json_text_and_items_validated():
    out = check(file_path="/x", edits='[{"old_string": "a", "replace_all": "true"}]', globs='["*.py"]')
    assert out["edits"] == [{"old_string": "a", "replace_all": True}]
    assert out["globs"] == ["*.py"]
    assert "edits[0].old_string" in error(file_path="/x", edits=[{}]).message
    assert "Unknown parameter(s): nope" in error(file_path="/x", edits=[{"old_string": "a", "nope": 1}]).message
    assert "at least one item" in error(file_path="/x", edits=[]).message
    assert check(file_path="/x", globs="*.log")["globs"] == ["*.log"]  # one item for a one-item list
    assert check(file_path="/x", edits={"old_string": "a"})["edits"] == [{"old_string": "a", "replace_all": False}]
    assert check(file_path="/x", edits='{"old_string": "a"}')["edits"] == [{"old_string": "a", "replace_all": False}]
    assert "expected an array" in error(file_path="/x", edits="not json").message
    assert "expected an array" in error(file_path="/x", globs=5).message
    assert "expected an object" in error(file_path="/x", edits=["x"]).message
    assert "expected a string" in error(file_path="/x", globs=[1]).message


def test_object_from_json_text():
    assert check(file_path="/x", opts='{"a": 1}')["opts"] == {"a": 1}
    assert "expected an object" in error(file_path="/x", opts="[1]").message
    assert "expected an object" in error(file_path="/x", opts="{bad").message


def test_schema_shape():
    schema = object_schema(PARAMS)
    assert schema["required"] == ["file_path"]
    assert schema["properties"]["limit"] == {
        "type": "integer",
        "description": "count",
        "minimum": 1,
        "maximum": 10000,
        "default": 2000,
    }
    assert schema["properties"]["edits"]["items"]["required"] == ["old_string"]
    assert schema["properties"]["globs"]["items"] == {"type": "string"}
    assert schema["additionalProperties"] is False


def test_unknown_type_rejected_at_declaration():
    with pytest.raises(ValueError):
        ToolParameter("x", "float", "bad")
