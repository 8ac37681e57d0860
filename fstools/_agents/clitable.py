"""The command list `fstools --help` shows, as a table, so the help loads no tool module, and the
top parser that both the help and the whole command line (`cli`) start from.

Each tool's line is the first sentence of its `cli_help`, copied here; the CLI's tests
hold the table to the declarations (a new or reworded tool fails them with the line to
write). `mcp` and `index` are declared here and nowhere else.
"""

from __future__ import annotations

import argparse
from typing import Any

from ..__version__ import __version__

MCP_HELP = "Serve every tool over MCP (stdio)"
INDEX_HELP = "Build, inspect, drop or watch the search index Grep and Glob answer from"

# (subcommand, one-line help), in the order `fstools --help` lists them.
COMMANDS: tuple[tuple[str, str], ...] = (
    (
        "read",
        "Print a text file with line numbers (like `cat -n`), a page at a time: "
        "--offset is the first line, --limit the number of lines.",
    ),
    (
        "read-many",
        "Print several files (PATHS: files and glob patterns), each under a '==> path <==' header with "
        "Read's numbered lines; the output stops before --max-chars and names the files left out.",
    ),
    ("outline", "Print the definitions of a source file (or of every source file under a directory) with their lines."),
    (
        "write",
        "Create FILE_PATH, or replace its whole content, with CONTENT (or --content-file PATH; '-' reads stdin).",
    ),
    ("edit", "Replace OLD_STRING with NEW_STRING in FILE_PATH and print the diff."),
    ("multi-edit", "Make several replacements in FILE_PATH, in order, all or nothing."),
    (
        "notebook-edit",
        "Replace, insert or delete one cell of a notebook (NOTEBOOK_PATH, read first) with NEW_SOURCE; "
        "the rest of the file stays byte for byte. --dry-run shows the cell's diff and writes nothing.",
    ),
    (
        "apply-patch",
        "Apply a patch in the apply_patch (V4A) format to the files it names, all or none: '*** Begin Patch', "
        "then '*** Add File: PATH', '*** Delete File: PATH' or '*** Update File: PATH' sections, "
        "then '*** End Patch'.",
    ),
    (
        "delete",
        "Delete a file or a symlink (the link, never its target); a directory only with --recursive, "
        "with everything in it.",
    ),
    (
        "move",
        "Move or rename SOURCE to DESTINATION (the full new path), creating missing parent directories.",
    ),
    (
        "ls",
        "List a directory (default: the current one): type, size, modification time and name, directories first.",
    ),
    (
        "glob",
        "Print the files matching PATTERN (e.g. '**/*.py', 'src/**/*.{ts,tsx}') under PATH "
        "(default: the current directory), newest first.",
    ),
    (
        "grep",
        "Search the files under PATH (default: the current directory) for PATTERN, a regular expression "
        "(--fixed-strings for a literal), with ripgrep.",
    ),
    (
        "symbols",
        "Print the definitions whose name matches QUERY in the source files under a directory.",
    ),
    ("references", "Print every use of the identifier NAME in the source files under a directory, with its kind."),
    (
        "checkpoint",
        "Mark this point in the change journal and print its id (for `fstools rewind ID` and `fstools changes`).",
    ),
    ("changes", "List the paths changed since checkpoint ID (--since ID; default: all the journal holds), with diffs."),
    ("rewind", "Take every path changed since checkpoint CHECKPOINT back to its state then, all or none."),
    (
        "undo",
        "Take back the last change fstools made to FILE_PATH (its content, mode and existence), "
        "from the change journal.",
    ),
    ("mcp", MCP_HELP),
    ("index", INDEX_HELP),
)

DESCRIPTION = (
    "Fast, safe file tools for AI coding agents. Each tool is a subcommand; `fstools mcp` serves them over MCP."
)
EPILOG = (
    "Paths may be relative to the current directory. Exit status: 0 success, 1 failure, 2 usage error; "
    "grep: 0 a line matched, 1 none did, 2 an error."
)


def top_parser() -> tuple[argparse.ArgumentParser, Any]:
    """The `fstools` parser (help, version, errors) and its subcommand action, with no subcommand yet."""
    # No abbreviations: `--old-string X` must not quietly mean `--old-string-file X`.
    parser = argparse.ArgumentParser(prog="fstools", allow_abbrev=False, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"fstools {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    return parser, commands
