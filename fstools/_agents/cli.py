"""The `fstools` command: one subcommand per registered tool, generated from its parameters, plus `mcp`.

Nothing here is written per tool: option names, types, bounds, defaults, choices and help
come from each tool's ToolParameters and its `cli_help`, and the arguments go through the
same validation as a model's tool call. Results are written for people: the output on
stdout, notices and warnings on stderr, parameters named as flags (`--offset 10`).
Imported only by `python -m fstools` / the `fstools` script.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import orjson

from .._content.fingerprints import remember
from .._core.context import ExecutionContext
from .._core.errors import ToolError
from .._core.hints import as_flags, flag
from .._core.params import ToolParameter
from .._core.paths import resolve_path
from .._core.permissions import PermissionRequest
from .._core.result import ToolResult
from .._core.spec import named_paths
from .._core.textsafe import jsonable, printable
from .._core.toolclass import BaseTool
from .._core.toolregistry import ToolRegistry
from .clitable import MCP_HELP, top_parser
from .index_cli import add_index_command, run_index
from .settings import Confirm, SessionSettings, parse_rule, usable_roots
from .toolset import create_registry, tool_of

EXIT_FAILED = 1
EXIT_USAGE = 2
# A search that reports a match count exits as grep and rg do: 0 a match, 1 none, 2 an error.
EXIT_NO_MATCH = 1
EXIT_SEARCH_ERROR = 2
# The metadata a search reports about the index (metadata["index"]): such a command takes --index.
_INDEX_FIELD = "index"
# Words of the model-facing parameter help that do not hold on the command line.
_ABSOLUTE = re.compile(r"^(?:The )?[Aa]bsolute path (?:of|to) ")


class UsageError(Exception):
    """A command line that cannot become a tool call; reported like argparse's own errors."""


def command_name(tool_name: str) -> str:
    """The subcommand of a tool: MultiEdit -> multi-edit, LS -> ls."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "-", tool_name).lower()


def _first_sentence(text: str) -> str:
    # A sentence ends at a full stop before a capital: "e.g. '*.py'" does not end one.
    return re.split(r"(?<=\.)\s+(?=[A-Z])", text.strip(), maxsplit=1)[0]


def _help(p: ToolParameter, dash_reads_stdin: bool = False) -> str:
    text = p.description
    if dash_reads_stdin:
        text += "; '-' reads it from stdin"
    if p.path:  # a path parameter is positional and may be relative on the command line
        text = _ABSOLUTE.sub("", text).replace("the working directory", "the current directory")
        text = text[:1].upper() + text[1:] + "; relative to the current directory, or absolute"
    text += "" if p.default is None else f" (default: {p.default})"
    return text.replace("%", "%%")


def _number(p: ToolParameter) -> Any:
    """An argparse type for an integer/number parameter: a bad value or one out of bounds is a usage error."""
    convert = int if p.type == "integer" else float

    def parse(text: str) -> int | float:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {'an integer' if convert is int else 'a number'}") from None
        if p.minimum is not None and value < p.minimum:
            raise argparse.ArgumentTypeError(f"must be >= {p.minimum}, got {text}")
        if p.maximum is not None and value > p.maximum:
            raise argparse.ArgumentTypeError(f"must be <= {p.maximum}, got {text}")
        return value

    parse.__name__ = p.type  # argparse names the type in its "invalid ... value" message
    return parse


@dataclass(frozen=True)
class Binding:
    """How one tool parameter appears on the command line."""

    param: ToolParameter
    dest: str
    positional: bool
    file_dest: str | None  # the `--NAME-file PATH` alternative for a required text/JSON value
    # A positional `-` reads the value from stdin: the content values of a changing tool, never a
    # search pattern (`grep - FILE` looks for a dash, as grep does).
    dash_reads_stdin: bool = False

    def read_value(self, ns: argparse.Namespace) -> Any:
        value = getattr(ns, self.dest)
        if self.param.type == "array" and isinstance(value, list) and len(value) == 1:
            # One repeated-option value that is a JSON array is taken as the whole array.
            return value[0] if value[0].lstrip().startswith("[") else value
        return value


def _bind(parser: argparse.ArgumentParser, p: ToolParameter, index: int, changes: bool) -> Binding:
    dest = f"arg{index}"
    positional = p.required or p.path
    from_file = p.required and not p.path and p.type in ("string", "array", "object")
    file_dest = f"{dest}_file" if from_file else None
    if positional:
        nargs = ("+" if p.required else "*") if p.path_list else "?" if from_file or not p.required else None
        parser.add_argument(dest, metavar=p.name.upper(), nargs=nargs, help=_help(p, from_file and changes))
    else:
        _add_option(parser, p, dest)
    if file_dest is not None:
        parser.add_argument(
            flag(p.name) + "-file",
            dest=file_dest,
            metavar="PATH",
            help=f"Read {p.name.upper()} from this file, exactly as it is ('-' reads stdin)",
        )
    return Binding(p, dest, positional, file_dest, from_file and changes)


def _add_option(parser: argparse.ArgumentParser, p: ToolParameter, dest: str) -> None:
    # Short names such as Grep's -i/-A stay as they are, with the Python keyword as the long form.
    names = [flag(p.name)] + ([flag(p.py_name)] if p.name.startswith("-") and p.py_name else [])
    kwargs: dict[str, Any] = {"dest": dest, "default": None, "help": _help(p)}
    if p.type == "boolean":
        long_form = any(n.startswith("--") for n in names)
        kwargs["action"] = argparse.BooleanOptionalAction if long_form else "store_const"
        if not long_form:
            kwargs["const"] = True
    elif p.type == "array" and p.items is None:
        kwargs.update(action="append", metavar=p.item_type.upper() if p.item_type else "VALUE")
    elif p.enum is not None:
        kwargs["choices"] = list(p.enum)
    elif p.type in ("integer", "number"):
        kwargs.update(metavar="N", type=_number(p))
    else:
        kwargs["metavar"] = p.name.upper().lstrip("-")
    parser.add_argument(*names, **kwargs)


class _RuleAction(argparse.Action):
    """--allow/--ask/--deny append to one ordered rule list (order matters: first match wins)."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: Any = None
    ) -> None:
        try:
            rules = parse_rule(self.const, values)
        except ValueError as exc:
            raise argparse.ArgumentError(self, str(exc)) from None
        setattr(namespace, self.dest, [*(getattr(namespace, self.dest) or []), *rules])


def _directory(value: str) -> str:
    if not os.path.isdir(value):
        raise argparse.ArgumentTypeError(f"not a directory: {value}")
    return os.path.abspath(value)


def _seconds(text: str) -> float:
    """A positive, finite number of seconds (argparse type)."""
    import math

    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number of seconds, got {text!r}")
    return value


def _session_options(changes: bool, root_type: Callable[[str], str] = _directory) -> argparse.ArgumentParser:
    """The sandbox and policy options; those about changing files only where something can change."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("session")
    group.add_argument(
        "--root",
        action="append",
        type=root_type,
        metavar="DIR",
        help="Allowed directory (repeatable; default: the current directory)",
    )
    if changes:
        group.add_argument("--read-only", action="store_true", help="Refuse every change to files")
        group.add_argument(
            "--dry-run", action="store_true", help="Report what would change, with a diff; change nothing"
        )
    # An ask rule asks only before a change: a read-only command has nothing to ask about.
    actions = [("allow", "Allow"), ("ask", "Ask before"), ("deny", "Refuse")]
    for action, what in actions if changes else [a for a in actions if a[0] != "ask"]:
        group.add_argument(
            f"--{action}",
            dest="rules",
            action=_RuleAction,
            const=action,
            metavar="TOOL[:GLOB]",
            help=f"{what} TOOL (comma list or '*') on paths matching GLOB; rules apply in order, any deny wins",
        )
    group.add_argument("--audit-log", metavar="FILE", help="Append one JSON line per operation to FILE")
    group.add_argument(
        "--timeout", type=_seconds, metavar="SECONDS", help="Time limit of searches and file locks (default: 30)"
    )
    if changes:
        group.add_argument("--yes", action="store_true", help="Confirm every change an --ask rule asks about")
    return parent


@dataclass(frozen=True)
class CommandLine:
    """The top parser (help, version, errors) and one parser per subcommand."""

    parser: argparse.ArgumentParser
    commands: dict[str, argparse.ArgumentParser]

    def parse(self, argv: Sequence[str]) -> argparse.Namespace:
        """Options and positionals may be mixed in any order (`grep PATTERN --json DIR`)."""
        if argv and argv[0] in self.commands:
            command = self.commands[argv[0]]
            # argparse cannot intermix a command that has subcommands of its own (`index build`).
            parse = command.parse_args if command.get_default("nested") else command.parse_intermixed_args
            args = parse(argv[1:])
            args.command = argv[0]
            return args
        return self.parser.parse_args(argv)


def build_parser(registry: ToolRegistry) -> CommandLine:
    """The whole command line: a subcommand per registered tool (from its parameters) and `mcp`."""
    parser, commands = top_parser()
    sessions = {changes: _session_options(changes) for changes in (False, True)}
    output = argparse.ArgumentParser(add_help=False)
    group = output.add_argument_group("output")
    group.add_argument(
        "--json",
        action="store_true",
        help="Print the whole result as one JSON object, with every detail the tool reports",
    )
    for tool in registry.list():
        sub = commands.add_parser(
            command_name(tool.name),
            help=_first_sentence(tool.cli_help),
            description=tool.cli_help,
            parents=[sessions[not tool.read_only], output],
            allow_abbrev=False,
        )
        # A tool's own dry_run (Rewind) is the session's --dry-run on the command line.
        ordered = sorted((p for p in tool.parameters if p.name != "dry_run"), key=lambda p: not p.required)
        changes = not tool.read_only
        sub.set_defaults(tool=tool, bindings=[_bind(sub, p, i, changes) for i, p in enumerate(ordered)])
        if _INDEX_FIELD in tool.output_schema().get("properties", {}):  # a search that may answer from an index
            sub.add_argument(
                "--index",
                choices=("auto", "off"),
                default="auto",
                help="auto (the default): answer from a fresh search index when one covers the path "
                "(fstools index build); off: scan the files, whatever index there is",
            )
    mcp = commands.add_parser(
        "mcp",
        help=MCP_HELP,
        # A server's --root that is missing is skipped with a warning, not fatal (see usable_roots).
        parents=[_session_options(True, root_type=str)],
        allow_abbrev=False,
        description="Serve every tool to an MCP client over stdio. Without --root, the client's roots "
        "(if it sends any) or the current directory are the allowed directories. A --root that is not a "
        "directory is skipped with a warning; the server starts unless none is usable.",
    )
    mcp.add_argument("--rate-limit", type=int, metavar="N", help="At most N operations per minute")
    mcp.add_argument(
        "--index",
        choices=("auto", "off"),
        default="auto",
        help="auto (the default): Grep and Glob answer from the roots' search indexes, which the server keeps "
        "fresh and builds in the background where a root has none (needs the index extra); off: always scan",
    )
    mcp.add_argument(
        "--language-servers",
        choices=("auto", "off"),
        default=None,
        help="auto (the default, unless FSTOOLS_LANGUAGE_SERVERS=off): after each change, the file's language server "
        "(basedpyright or pyright, typescript-language-server, clangd, gopls, rust-analyzer, if installed) reports the "
        "errors the change introduced; off: the syntax check only",
    )
    mcp.add_argument(
        "--lsp-timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="The most a change waits for its language server's diagnostics (default 3); past it the result says "
        "the semantic check was not done",
    )
    mcp.add_argument(
        "--output-schemas",
        action="store_true",
        help="List each tool's output schema (for a client that checks structuredContent against it); "
        "structuredContent is sent either way",
    )
    add_index_command(commands)
    return CommandLine(parser, dict(commands.choices))


def _read_text(source: str, stdin: TextIO) -> str:
    try:
        data = stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as exc:
        raise UsageError(f"cannot read {source}: {exc.strerror}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{'stdin' if source == '-' else source} is not valid UTF-8") from None


def collect_arguments(bindings: Sequence[Binding], ns: argparse.Namespace, stdin: TextIO) -> dict[str, Any]:
    """The tool arguments (keyed by parameter name) a parsed command line stands for.

    Positional values fill, in order, the positional parameters that no `--NAME-file`
    supplied, so `edit FILE --old-string-file old.txt NEW` means what it says.
    """
    sources = {b.param.name: getattr(ns, b.file_dest) for b in bindings if b.file_dest and getattr(ns, b.file_dest)}
    positional = [b for b in bindings if b.positional]
    values = _positional_values(positional, ns, sources)
    from_stdin = [name.upper() for name, source in sources.items() if source == "-"]
    if len(from_stdin) > 1:
        raise UsageError(f"only one value can come from stdin ('-'): {' and '.join(from_stdin)} both ask for it")
    values.update((name, _read_text(source, stdin)) for name, source in sources.items())
    for b in bindings:
        if not b.positional and getattr(ns, b.dest) is not None:
            values[b.param.name] = b.read_value(ns)
    _require_positionals(positional, values)
    _absolute_paths(bindings, values)
    return values


def _positional_values(
    positional: Sequence[Binding], ns: argparse.Namespace, sources: dict[str, str]
) -> dict[str, Any]:
    """The positional values, in order, of the positional parameters no `--NAME-file` supplied; a '-'
    for a parameter that reads stdin joins `sources`."""
    given = [getattr(ns, b.dest) for b in positional if getattr(ns, b.dest) not in (None, [])]
    open_slots = [b for b in positional if b.param.name not in sources]
    if len(given) > len(open_slots):
        raise UsageError(f"too many arguments: {' '.join(given[len(open_slots) :])}")
    values: dict[str, Any] = {}
    for b, value in zip(open_slots, given, strict=False):
        if b.dash_reads_stdin and value == "-":
            sources[b.param.name] = "-"
        else:
            values[b.param.name] = value
    return values


def _require_positionals(positional: Sequence[Binding], values: dict[str, Any]) -> None:
    for b in positional:
        if b.param.required and b.param.name not in values:
            alternative = f" or with {flag(b.param.name)}-file PATH ('-' reads stdin)" if b.file_dest else ""
            raise UsageError(f"missing {b.param.name.upper()}: give it as an argument{alternative}")


def _absolute_paths(bindings: Sequence[Binding], values: dict[str, Any]) -> None:
    """Paths given on the command line are relative to the current directory: made absolute here."""
    for b in bindings:
        value = values.get(b.param.name)
        if b.param.path and isinstance(value, str):
            values[b.param.name] = os.path.abspath(value)
        elif b.param.path and isinstance(value, list):
            values[b.param.name] = [os.path.abspath(v) if isinstance(v, str) else v for v in value]


def terminal_confirm(assume_yes: bool, stdin: TextIO, stderr: TextIO) -> Confirm:
    """An `ask` on the command line: --yes confirms, a terminal is asked, anything else refuses."""

    def confirm(request: PermissionRequest) -> bool:
        stderr.write(request.describe() + "\n")
        if assume_yes:
            stderr.write("Confirmed by --yes.\n")
            return True
        if stdin is None or not stdin.isatty():
            stderr.write("Not confirmed: stdin is not a terminal (pass --yes to confirm).\n")
            return False
        stderr.write("Apply? [y/N] ")
        stderr.flush()
        return stdin.readline().strip().lower() in ("y", "yes")

    return confirm


def _check_rule_tools(settings: SessionSettings, registry: ToolRegistry) -> None:
    for rule in settings.rules:
        if not any(c in rule.tool for c in "*?[") and rule.tool not in registry:
            every = create_registry(journal=True)  # a command loads only its own tool
            if rule.tool in every:
                continue
            known = ", ".join(every.names())
            raise UsageError(f"unknown tool in --{rule.action} rule: {rule.tool} (tools: {known})")


def _settings(args: argparse.Namespace) -> SessionSettings:
    return SessionSettings(
        roots=tuple(args.root or ()),
        read_only=getattr(args, "read_only", False),
        dry_run=getattr(args, "dry_run", False),
        rules=tuple(args.rules or ()),
        audit_log=args.audit_log,
        rate_limit=getattr(args, "rate_limit", None),
        index=getattr(args, "index", "auto"),
        language_servers=getattr(args, "language_servers", None),
        lsp_timeout=getattr(args, "lsp_timeout", None),
        output_schemas=getattr(args, "output_schemas", False),
        timeout=args.timeout,
    )


def _serving_roots(settings: SessionSettings, stderr: TextIO) -> SessionSettings:
    """The server's settings with only the usable --root directories (warnings on stderr)."""

    def warn(message: str) -> None:
        stderr.write(f"fstools mcp: warning: {message}\n")
        stderr.flush()

    try:
        return replace(settings, roots=usable_roots(settings.roots, warn))
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def exit_status(tool: BaseTool, result: ToolResult) -> int:
    """0 success, 1 failure; a search that counts its matches (`cli_match_count`) exits as rg does."""
    if tool.cli_match_count is not None:
        if not result.success:
            return EXIT_SEARCH_ERROR
        return 0 if result.metadata.get(tool.cli_match_count) else EXIT_NO_MATCH
    return 0 if result.success else EXIT_FAILED


def print_result(
    result: ToolResult,
    as_json: bool,
    command: str,
    stdout: TextIO,
    stderr: TextIO,
    match_count: str | None = None,
    names: Sequence[str] = (),
) -> None:
    """--json: the whole ToolResult on one line. Otherwise the output on stdout (a search that found
    nothing, its `match_count` 0, says so on stderr), the notice and the warnings on stderr, or the
    error on stderr; a `name=value` of the parameters `names` in a message is shown as its option
    (`--replace-all`)."""

    def say(text: str) -> None:
        stderr.write(printable(f"fstools {command}: {as_flags(text, names)}") + "\n")

    if as_json:
        payload = jsonable(result.to_dict())
        stdout.write(orjson.dumps(payload, default=str, option=orjson.OPT_NON_STR_KEYS).decode() + "\n")
        return
    if not result.success:
        say(f"{result.error} [{result.error_code}]")
        return
    notice = result.metadata.get("notice")
    output = result.output.removesuffix(notice).rstrip("\n") if notice else result.output  # stdout: data only
    if match_count is not None and result.metadata.get(match_count) == 0:
        say(output)
    elif output:
        text = printable(output)
        stdout.write(text if text.endswith("\n") else text + "\n")
    if notice:
        say(notice)
    for warning in result.metadata.get("warnings") or ():
        say(f"warning: {warning}")
    index = index_notice(result)
    if index:
        say(index)


def index_notice(result: ToolResult) -> str | None:
    """Whether a search index answered, said where one was involved: "none", "off" and "single
    file" (no index is asked about one file) say nothing."""
    state = result.metadata.get(_INDEX_FIELD)
    if not isinstance(state, str) or state in ("none", "off", "single file"):
        return None
    return "answered from the search index" if state == "used" else f"searched without the index ({state})"


def presume_read(tool: BaseTool, ctx: ExecutionContext, arguments: dict[str, Any]) -> None:
    """Count the file a mutating command names as read by this one-shot session.

    Read-before-write guards an agent's session against clobbering a file it never looked
    at; a command line is a whole session of one call that names its file explicitly, so
    without this `fstools edit` could never succeed. The record is the file's current
    stat, so a change between here and the write is still caught.
    """
    if tool.read_only:
        return
    for path in named_paths(tool.parameters, arguments):
        try:
            target = resolve_path(ctx, path)
        except ToolError:
            return  # the tool itself reports the refusal
        if target.is_file and target.stat is not None:
            remember(ctx, target.path, target.stat, None)


def run_tool(
    tool: BaseTool, args: argparse.Namespace, settings: SessionSettings, stdin: TextIO, stdout: TextIO, stderr: TextIO
) -> int:
    arguments = collect_arguments(args.bindings, args, stdin)
    ctx = settings.context(confirm=terminal_confirm(getattr(args, "yes", False), stdin, stderr), arg_style="flags")
    presume_read(tool, ctx, arguments)
    result = tool.run(ctx, **arguments)
    names = [p.name for p in tool.parameters]
    print_result(result, args.json, args.command, stdout, stderr, tool.cli_match_count, names)
    return exit_status(tool, result)


def _registry_for(argv: Sequence[str]) -> ToolRegistry:
    """The tools a command line needs: the one its subcommand runs (its module alone loaded), else every
    tool, the journal's too, for people (and the MCP server's users) can take changes back."""
    tool = tool_of(argv[0].replace("-", "_")) if argv else None
    if tool is not None and command_name(tool.name) == argv[0]:
        registry = ToolRegistry()
        registry.register(tool)
        return registry
    return create_registry(journal=True)


def run(
    argv: Sequence[str] | None = None,
    *,
    registry: ToolRegistry | None = None,
    stdin: TextIO | None = None,
    stdout: TextIO | None = None,
    stderr: TextIO | None = None,
) -> int:
    """Parse a command line and carry it out; returns the exit status (streams default to sys's)."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    argv = sys.argv[1:] if argv is None else list(argv)
    registry = registry or _registry_for(argv)
    command_line = build_parser(registry)
    args = command_line.parse(argv)
    if args.command is None:
        command_line.parser.print_help(stderr)
        return EXIT_USAGE
    if args.command == "index":
        return run_index(args, stdout, stderr)
    try:
        settings = _settings(args)
        _check_rule_tools(settings, registry)
        if args.command == "mcp":
            settings = _serving_roots(settings, stderr)
            try:
                from .mcp import serve
            except ImportError as exc:
                raise UsageError(f"the MCP server needs the MCP SDK: pip install 'fstools[mcp]' ({exc})") from None
            serve(settings, registry)
            return 0
        return run_tool(args.tool, args, settings, stdin, stdout, stderr)
    except UsageError as exc:
        stderr.write(f"fstools {args.command}: error: {exc}\n")
        return EXIT_USAGE


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `fstools` script and `python -m fstools`."""
    return run(argv)
