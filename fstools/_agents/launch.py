"""The entry point of the `fstools` script and `python -m fstools`.

A fresh process pays for what it runs: `--version` and the command list (`--help`, or no
command) come from this module and `clitable` alone, in a few milliseconds over the
interpreter's start; any other command loads the command line (`cli`), which loads only
the tool it runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .clitable import COMMANDS, top_parser

EXIT_USAGE = 2


def listing_parser() -> argparse.ArgumentParser:
    """The top parser with every subcommand named (from the table), enough to print the help."""
    parser, commands = top_parser()
    for name, text in COMMANDS:
        commands.add_parser(name, help=text)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a command line; returns the exit status."""
    args = sys.argv[1:] if argv is None else list(argv)
    # argparse acts on the first of these it meets and ignores the rest of the line.
    if not args or args[0] in ("-h", "--help", "--version"):
        parser = listing_parser()
        if not args:
            parser.print_help(sys.stderr)
            return EXIT_USAGE
        parser.parse_args(args[:1])  # prints the help or the version and exits 0
    from .cli import run

    return run(args)
