"""Parameters named the way the reader of a result writes them.

A notice or an error that tells the caller what to send next ("call again with offset=10")
names tool parameters. A model writes a tool call, `offset=10`; a person at the command
line writes `--offset 10`. The context's `arg_style` says which reader it is, and every
such message is built here, so a tool states the hint once and each reader gets its form.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterable

from .context import ExecutionContext


def flag(name: str) -> str:
    """The command-line option of a tool parameter: `offset` -> `--offset`; short names such as `-i` stay."""
    return name if name.startswith("-") else "--" + name.replace("_", "-")


def param(ctx: ExecutionContext, name: str) -> str:
    """A parameter's name as the reader writes it: `limit` or `--limit`."""
    return flag(name) if ctx.arg_style == "flags" else name


def _flag_setting(name: str, value: object) -> str:
    if isinstance(value, bool):
        option = flag(name)
        return option if value else "--no-" + option[2:]
    return f"{flag(name)} {shlex.quote(str(value))}"


def setting(ctx: ExecutionContext, name: str, value: object) -> str:
    """One argument as the reader writes it: `offset=10` / `--offset 10`, `hidden=true` / `--hidden`."""
    if ctx.arg_style == "flags":
        return _flag_setting(name, value)
    if isinstance(value, bool):
        return f"{name}={'true' if value else 'false'}"
    return f"{name}={json.dumps(value) if isinstance(value, str) else value}"


def as_flags(text: str, names: Iterable[str]) -> str:
    """`text` with every `name=value` of the parameters `names` written as a command-line option.

    For messages phrased for a model deep inside a tool, where the reader is not known
    ("set replace_all=true" -> "set --replace-all"); values are JSON literals.
    """
    known = sorted(names, key=len, reverse=True)
    if not known:
        return text
    alternatives = "|".join(map(re.escape, known))
    pattern = re.compile(rf'(?<![\w-])({alternatives})=(true|false|-?\d+|"(?:[^"\\]|\\.)*")')
    return pattern.sub(lambda m: _flag_setting(m.group(1), json.loads(m.group(2))), text)
