"""Session settings from the command line, shared by the CLI and the MCP server.

Both front ends turn the same options (`--root`, `--read-only`, `--dry-run`, permission
rules, audit log, rate limit, timeout) into an ExecutionContext the same way, so a
sandbox means the same thing whichever way an agent reaches fstools.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from .._core.context import ArgStyle, ExecutionContext
from .._core.paths import is_within
from .._core.permissions import PermissionManager, PermissionRequest, PermissionRule

Confirm = Callable[[PermissionRequest], bool]


def parse_rule(action: str, text: str) -> list[PermissionRule]:
    """`TOOL[,TOOL...][:PATH_GLOB]` -> one rule per tool ("Write,Edit:**/*.lock"; no glob means every path)."""
    tools, _, path = text.partition(":")
    names = [t.strip() for t in tools.split(",") if t.strip()]
    if not names:
        raise ValueError(f"a rule needs a tool name or '*': {text!r}")
    return [PermissionRule(tool=name, path=path or "**", action=action) for name in names]


def usable_roots(roots: Sequence[str], warn: Callable[[str], object]) -> tuple[str, ...]:
    """The directories among `roots`; each other one is reported through `warn` and left out.

    A long-running server started with one stale `--root` among good ones should serve the
    good ones rather than not start; ValueError only when no root is usable.
    """
    usable = []
    for root in roots:
        if os.path.isdir(root):
            usable.append(os.path.abspath(root))
        else:
            why = "does not exist" if not os.path.lexists(root) else "is not a directory"
            warn(f"--root {root} {why}: skipped")
    if roots and not usable:
        raise ValueError(f"no usable --root: none of {', '.join(roots)} is a directory")
    return tuple(usable)


@dataclass(frozen=True)
class SessionSettings:
    """What the operator decided for every call of one session.

    `roots` empty means "not given on the command line": the front end then picks the
    roots (the MCP client's roots, else the current directory).
    """

    roots: tuple[str, ...] = ()
    read_only: bool = False
    dry_run: bool = False
    rules: tuple[PermissionRule, ...] = ()
    audit_log: str | None = None
    rate_limit: int | None = None
    timeout: float | None = None
    # The search index: "auto" uses (and, in a long-lived server, builds) the roots' indexes; "off" never.
    index: Literal["auto", "off"] = "auto"
    # Language servers after each change: "auto", "off", or None (the front end's default: auto in the MCP server).
    language_servers: Literal["auto", "off"] | None = None
    lsp_timeout: float | None = None
    # The MCP server lists each tool's output schema only when asked (a client that validates results).
    output_schemas: bool = False

    def context(
        self,
        *,
        roots: Sequence[str] = (),
        confirm: Confirm | None = None,
        cwd: str | None = None,
        arg_style: ArgStyle = "call",
    ) -> ExecutionContext:
        """The session's one context: allowed dirs are `roots`, else `self.roots`, else `cwd`.

        The working directory (the default path of LS, Glob and Grep) is `cwd` when it lies
        inside an allowed dir, otherwise the first allowed dir. `arg_style` is how its results
        name parameters: "call" for models, "flags" on the command line.
        """
        cwd = cwd or os.getcwd()
        dirs = [os.path.abspath(d) for d in (roots or self.roots or (cwd,))]
        canonical_cwd = os.path.realpath(cwd)
        inside = any(is_within(canonical_cwd, os.path.realpath(d)) for d in dirs)
        ctx = ExecutionContext(
            working_dir=cwd if inside else dirs[0],
            allowed_dirs=dirs,
            read_only=self.read_only,
            dry_run=self.dry_run,
            permissions=PermissionManager(rules=self.rules, confirm=confirm) if self.rules else None,
            audit_log=self.audit_log,
            rate_limit_per_minute=self.rate_limit,
            arg_style=arg_style,
            search_index=self.index,
            language_servers=self.language_servers,
        )
        if self.timeout is not None:  # otherwise the context's own default stands
            ctx.timeout = self.timeout
        if self.lsp_timeout is not None:
            if self.lsp_timeout <= 0:
                raise ValueError(f"--lsp-timeout must be a positive number of seconds, not {self.lsp_timeout:g}")
            ctx.lsp_timeout = self.lsp_timeout
        return ctx
