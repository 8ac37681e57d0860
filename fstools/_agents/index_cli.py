"""`fstools index build|status|drop|watch [DIR]`: the search index of a directory, from the command line."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

import orjson

from .clitable import INDEX_HELP

ACTIONS = ("build", "status", "drop", "watch")
_BAR = 30


_ACTION_HELP = {
    "build": "Build (or rebuild) the index of DIR; Grep and Glob answer from it while it is fresh",
    "status": "Say whether DIR has an index and whether it is fresh",
    "drop": "Remove the index of DIR",
    "watch": "Keep the index of DIR fresh until interrupted, answering new processes' Grep and freshness questions",
}
_WHERE = "The index lives in $FSTOOLS_CACHE_DIR, else $XDG_CACHE_HOME/fstools, else ~/.cache/fstools."
# What the index needs beyond fstools' own dependencies, and the command that installs it.
INDEX_EXTRA_HINT = "the search index needs numpy: pip install 'fstools[index]'"


def add_index_command(commands: Any) -> None:
    sub = commands.add_parser(
        "index",
        help=INDEX_HELP,
        description=f"Build (or rebuild), inspect, drop or watch the search index of DIR. {_WHERE}",
    )
    sub.set_defaults(nested=True)
    actions = sub.add_subparsers(dest="action", metavar="ACTION", title="actions", required=True)
    for action, text in _ACTION_HELP.items():
        one = actions.add_parser(action, help=text, description=f"{text}. {_WHERE}", allow_abbrev=False)
        one.add_argument("dir", nargs="?", default=".", metavar="DIR", help="The directory (default: the current one)")
        one.add_argument("--json", action="store_true", help="Print the result as JSON")


def _index_extra_missing() -> bool:
    try:
        import numpy  # noqa: F401
    except ImportError:
        return True
    return False


def _progress(stream: TextIO) -> Any:
    if not stream.isatty():
        return None

    def show(done: int, total: int) -> None:
        filled = _BAR * done // total if total else _BAR
        stream.write(f"\rindexing [{'#' * filled}{'.' * (_BAR - filled)}] {done}/{total} files")
        if done >= total:
            stream.write("\n")
        stream.flush()

    return show


def _print(info: dict[str, Any], as_json: bool, stdout: TextIO) -> None:
    if as_json:
        stdout.write(orjson.dumps(info).decode() + "\n")
    else:
        stdout.write("".join(f"{key}: {value}\n" for key, value in info.items()))


def run_index(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from .._index.location import LockBusy
    from .._index.service import build_index, drop_index, status

    root = os.path.realpath(args.dir)
    if not os.path.isdir(root):
        stderr.write(f"fstools index: error: not a directory: {args.dir}\n")
        return 2
    if args.action == "build" and _index_extra_missing():
        stderr.write(f"fstools index: error: {INDEX_EXTRA_HINT}\n")
        return 2
    try:
        if args.action == "build":
            report = build_index(root, progress=_progress(stderr))
            info: dict[str, Any] = {
                "root": report.root,
                "files": report.files,
                "indexed_bytes": report.indexed_bytes,
                "index_bytes": report.index_bytes,
                "seconds": round(report.seconds, 2),
            }
        elif args.action == "status":
            info = status(root)
        elif args.action == "watch":
            from .._index.keeper import watch_forever

            return watch_forever(root, stderr)
        else:
            info = {"root": root, "dropped": drop_index(root)}
    except (LockBusy, OSError, TimeoutError, ValueError) as exc:
        stderr.write(f"fstools index: error: {exc}\n")
        return 1
    _print(info, args.json, stdout)
    return 0
