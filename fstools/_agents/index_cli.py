"""`fstools index build|status|drop|watch [DIR]`: the search index of a directory, from the command line."""

from __future__ import annotations

import argparse
import os
from typing import Any, TextIO

import orjson

ACTIONS = ("build", "status", "drop", "watch")
_BAR = 30


def add_index_command(commands: Any) -> None:
    sub = commands.add_parser(
        "index",
        help="Build, inspect, drop or watch the search index Grep and Glob answer from",
        description="Build (or rebuild), inspect or drop the search index of DIR (default: the current "
        "directory). The index lives in $FSTOOLS_CACHE_DIR, else $XDG_CACHE_HOME/fstools, else ~/.cache/fstools. "
        "`watch` keeps the index fresh until interrupted and answers other processes' freshness questions, "
        "so a one-shot Grep or Glob need not check every file itself.",
    )
    sub.add_argument("action", choices=ACTIONS)
    sub.add_argument("dir", nargs="?", default=".", metavar="DIR")
    sub.add_argument("--json", action="store_true", help="Print the result as JSON")


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
