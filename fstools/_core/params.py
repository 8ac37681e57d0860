"""Tool parameters: their JSON Schema and the validation of incoming arguments.

A parameter is declared once (a ToolParameter); from it come the schema the model sees,
the checks on what the model sends, and the keyword the Python function receives.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import ErrorCode, ToolError

_TRUE = {"true", "1", "yes", "y", "on"}
_FALSE = {"false", "0", "no", "n", "off"}

JSON_TYPES = ("string", "integer", "number", "boolean", "array", "object")
# The largest integer JSON carries exactly; an integer parameter without its own maximum
# stops here, so no huge value reaches C code (OverflowError) or a child's argv.
MAX_INTEGER = 2**53 - 1
_SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class ToolParameter:
    """One argument of a tool.

    `py_name` is the keyword the Python function takes when the tool's name is not an
    identifier (Grep's "-i" is `case_insensitive`). `items` declares the fields of the
    objects in an array parameter (MultiEdit's edits). A `text` string is file content: it
    may hold NUL and the lone surrogates that stand for undecodable bytes; no other string may.

    `path=True` declares a file or directory the call acts on: a string is one path, an array
    of strings a list of paths (each one like a single path). A bad path is `invalid_path`, the
    audit log records it, the command line takes it as a positional argument relative to the
    current directory, and the MCP server runs calls naming the same file in arrival order.
    """

    name: str
    type: str
    description: str
    required: bool = False
    default: Any = None
    minimum: int | float | None = None
    maximum: int | float | None = None
    enum: Sequence[str] | None = None
    items: Sequence[ToolParameter] | None = None
    item_type: str | None = None
    py_name: str | None = None
    text: bool = False
    path: bool = False

    def __post_init__(self) -> None:
        if self.type not in JSON_TYPES:
            raise ValueError(f"unknown parameter type {self.type!r} for {self.name!r}")
        if self.path and not (self.type == "string" or (self.type == "array" and self.items is None)):
            raise ValueError(f"a path parameter is a string or an array of strings, not {self.type!r} ({self.name!r})")
        if self.path and self.item_type not in (None, "string"):
            raise ValueError(f"a list of paths holds strings, not {self.item_type!r} ({self.name!r})")

    @property
    def path_list(self) -> bool:
        """Whether this parameter is a list of paths (an array declared with `path=True`)."""
        return self.path and self.type == "array"

    @property
    def keyword(self) -> str:
        """The Python keyword of this parameter: `py_name` if set, else `name`."""
        return self.py_name or self.name

    def json_schema(self) -> dict[str, Any]:
        """This parameter's JSON Schema property: type, description and any enum, bounds and default."""
        schema: dict[str, Any] = {"type": self.type, "description": self.description}
        if self.enum is not None:
            schema["enum"] = list(self.enum)
        if self.minimum is not None:
            schema["minimum"] = self.minimum
        if self.maximum is not None:
            schema["maximum"] = self.maximum
        if self.default is not None:
            schema["default"] = self.default
        if self.type == "array" and self.items is not None:
            schema["items"] = object_schema(self.items)
            schema["minItems"] = 1
        elif self.type == "array":
            schema["items"] = {"type": self.item_type or "string"}
        return schema


def object_schema(parameters: Sequence[ToolParameter]) -> dict[str, Any]:
    """JSON Schema of an object whose properties are `parameters`."""
    return {
        "type": "object",
        "properties": {p.name: p.json_schema() for p in parameters},
        "required": [p.name for p in parameters if p.required],
        "additionalProperties": False,
    }


def _json_text(value: str) -> Any:
    """Parse a JSON-encoded array/object a model sent as a string; ValueError when it is not JSON."""
    import json  # lazily: only models that stringify arrays pay for it

    return json.loads(value)


def _bad(param: str, message: str) -> ToolError:
    return ToolError(ErrorCode.INVALID_ARGUMENT, f"Invalid argument '{param}': {message}")


def _check_name_text(p: ToolParameter, value: str, where: str) -> None:
    """A path, pattern or name must be something the OS and rg can take: no NUL, valid Unicode."""
    problem = None
    if "\x00" in value:
        problem = "contains a NUL character"
    elif not value.isascii() and _SURROGATE.search(value):
        problem = "contains a lone surrogate (U+D800-U+DFFF), which is not valid Unicode"
    if problem is not None:
        code = ErrorCode.INVALID_PATH if p.path else ErrorCode.INVALID_ARGUMENT
        raise ToolError(
            code, f"Invalid {'path' if code is ErrorCode.INVALID_PATH else 'argument'} '{where}': {problem}"
        )


def _coerce_string(p: ToolParameter, value: Any, where: str) -> str:
    if isinstance(value, str):
        if not p.text:
            _check_name_text(p, value, where)
        return value
    raise _bad(where, f"expected a string, got {type(value).__name__}")


def _coerce_boolean(p: ToolParameter, value: Any, where: str) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
        return value.strip().lower() in _TRUE
    if isinstance(value, int) and value in (0, 1):
        return bool(value)
    raise _bad(where, f"expected a boolean, got {value!r}")


def _coerce_integer(p: ToolParameter, value: Any, where: str) -> int:
    if isinstance(value, bool):
        raise _bad(where, f"expected an integer, got {value!r}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        try:
            return int(value.strip())
        except ValueError:
            pass
    raise _bad(where, f"expected an integer, got {value!r}")


def _coerce_number(p: ToolParameter, value: Any, where: str) -> float:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
        return value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
        if math.isfinite(number):
            return number
    raise _bad(where, f"expected a number, got {value!r}")


def _coerce_array(p: ToolParameter, value: Any, where: str) -> list[Any]:
    if isinstance(value, str):
        try:
            value = _json_text(value)
        except ValueError:
            if p.items is not None:
                raise _bad(where, "expected an array (or its JSON text)") from None
    # Models often send the one item instead of a one-item list: "*.log" for ["*.log"].
    if isinstance(value, (str, Mapping)):
        value = [value]
    if not isinstance(value, (list, tuple)):
        raise _bad(where, f"expected an array, got {type(value).__name__}")
    if p.items is None:
        item = ToolParameter(p.name, p.item_type or "string", p.description, path=p.path)
        return [_coerce(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
    if not value:
        raise _bad(where, "must contain at least one item")
    return [_validate_object(p.items, item, f"{where}[{i}]", by_keyword=False) for i, item in enumerate(value)]


def _coerce_object(p: ToolParameter, value: Any, where: str) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = _json_text(value)
        except ValueError:
            raise _bad(where, "expected an object (or its JSON text)") from None
    if not isinstance(value, Mapping):
        raise _bad(where, f"expected an object, got {type(value).__name__}")
    return dict(value)


# One coercer per JSON Schema type; any other ("object") takes an object.
Coercer = Callable[["ToolParameter", Any, str], Any]
_COERCERS: dict[str, Coercer] = {
    "string": _coerce_string,
    "boolean": _coerce_boolean,
    "integer": _coerce_integer,
    "number": _coerce_number,
    "array": _coerce_array,
}


def _coerce(p: ToolParameter, value: Any, where: str) -> Any:
    """Coerce a value to the parameter's type, accepting the string forms models often send."""
    coerce: Coercer = _COERCERS.get(p.type, _coerce_object)
    return coerce(p, value, where)


def _short(value: Any) -> str:
    """The value for a message; a huge integer by its size (str() refuses past 4,300 digits)."""
    if isinstance(value, int) and value.bit_length() > 64:
        return f"an integer of {value.bit_length()} bits"
    return str(value)


def _check_bounds(p: ToolParameter, value: Any, where: str) -> None:
    if p.enum is not None and value not in p.enum:
        raise _bad(where, f"must be one of {', '.join(map(str, p.enum))}; got {value!r}")
    if p.minimum is not None and value < p.minimum:
        raise _bad(where, f"must be >= {p.minimum}; got {_short(value)}")
    maximum = p.maximum if p.maximum is not None or p.type != "integer" else MAX_INTEGER
    if maximum is not None and value > maximum:
        raise _bad(where, f"must be <= {maximum}; got {_short(value)}")


def _validate_object(parameters: Sequence[ToolParameter], args: Any, where: str, *, by_keyword: bool) -> dict[str, Any]:
    if not isinstance(args, Mapping):
        raise _bad(where, f"expected an object, got {type(args).__name__}")
    known = {p.name for p in parameters}
    unknown = sorted(str(k) for k in args if k not in known)
    if unknown:
        prefix = f"{where}: " if where else ""
        raise ToolError(
            ErrorCode.INVALID_ARGUMENT,
            f"{prefix}Unknown parameter(s): {', '.join(unknown)}. Valid parameters: {', '.join(sorted(known))}",
        )
    out: dict[str, Any] = {}
    for p in parameters:
        name = f"{where}.{p.name}" if where else p.name
        value = args.get(p.name)
        if value is None:
            if p.required:
                raise ToolError(ErrorCode.INVALID_ARGUMENT, f"Missing required parameter: {name}")
            value = p.default
        else:
            value = _coerce(p, value, name)
            _check_bounds(p, value, name)
        out[p.keyword if by_keyword else p.name] = value
    return out


def validate_arguments(parameters: Sequence[ToolParameter], args: Mapping[str, Any]) -> dict[str, Any]:
    """Check and coerce tool arguments; returns them keyed by Python keyword, defaults filled.

    None counts as absent: models send `"offset": null` for "use the default".
    """
    return _validate_object(parameters, args, "", by_keyword=True)
