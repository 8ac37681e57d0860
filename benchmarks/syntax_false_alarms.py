"""No false alarms: a harmless edit to every parseable file of real trees reports nothing.

    python3 -m benchmarks.syntax_false_alarms                      # the typical project and CPython's Lib
    python3 -m benchmarks.syntax_false_alarms --kernel             # and the Linux kernel tree
    python3 -m benchmarks.syntax_false_alarms --tree DIR --limit 500

For every file fstools would check (a known language, UTF-8, at most 1 MiB), two harmless
changes are checked exactly as the change tools check them (`check_text(before, after)`):

* append: a comment line appended at the end, in the file's comment syntax (JSON: `//`,
  which JSON with comments allows);
* inside: a word added inside the file's first comment (or, without one, inside its first
  string literal's text), found with the file's own syntax tree.

Both leave a valid file valid, and leave a broken file's errors where they were: any
diagnostic is a false alarm. Files that already had syntax errors are counted apart: for
them this measures that errors already there are not blamed on the change. Prints a table
per language: files, files already broken, diagnostics per edit, median and 95th
percentile time of a check; exits 1 if any diagnostic was reported.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field

from fstools._syntax.check import MAX_CHECK_BYTES, can_check, check_text
from fstools._syntax.languages import Language, language_for_path, parse

SKIP_DIRS = {".git", "node_modules", "__pycache__", ".venv", "venv", ".tox", "site-packages"}
COMMENT_KINDS = ("comment", "line_comment", "block_comment")
STRING_TEXT_KINDS = ("string_content", "string_fragment", "interpreted_string_literal_content", "string_value")


@dataclass
class Tally:
    files: int = 0
    broken_before: int = 0
    inside_edits: int = 0
    alarms: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    times: list[float] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)


def candidates(root: str) -> list[tuple[str, Language]]:
    found = []
    for top, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        for name in sorted(files):
            path = os.path.join(top, name)
            if os.path.islink(path):
                continue
            head = b""
            if "." not in name:
                try:
                    with open(path, "rb") as f:
                        head = f.read(256)
                except OSError:
                    continue
            language = language_for_path(path, head)
            if language is not None and can_check(language):
                found.append((path, language))
    return found


def appended(text: str, language: Language) -> str:
    comment = language.comment or "//"
    return f"{text}{'' if text.endswith(chr(10)) or not text else chr(10)}{comment} checked by fstools\n"


def inside(text: str, source: bytes, language: Language) -> str | None:
    """The text with a word added inside its first comment, else its first string's text; None: neither."""
    tree = parse(language, source)
    if tree is None:
        return None
    target = _first(tree.root_node, COMMENT_KINDS) or _first(tree.root_node, STRING_TEXT_KINDS)
    if target is None:
        return None
    node, kind = target
    raw = source[node.start_byte : node.end_byte]
    if kind == "string":
        at = node.start_byte
    elif b"\n" in raw.rstrip(b"\n"):
        at = node.start_byte + raw.index(b"\n")  # the end of a block comment's first line
    elif raw.endswith(b"*/"):
        at = node.end_byte - 2
    else:
        at = node.start_byte + len(raw.rstrip(b"\r\n"))
    word = b" fstools" if kind == "comment" else b"fstools"
    return (source[:at] + word + source[at:]).decode("utf-8")


def _first(root: object, kinds: tuple[str, ...]) -> tuple[object, str] | None:
    cursor = root.walk()  # type: ignore[attr-defined]
    while True:
        node = cursor.node
        if node.type in kinds and node.end_byte > node.start_byte:
            return node, "comment" if kinds is COMMENT_KINDS else "string"
        if cursor.goto_first_child() or cursor.goto_next_sibling():
            continue
        while True:
            if not cursor.goto_parent():
                return None
            if cursor.goto_next_sibling():
                break


def measure(root: str, limit: int | None, tallies: dict[str, Tally], every: int = 1) -> int:
    checked = 0
    for path, language in candidates(root)[::every][:limit]:
        try:
            with open(path, "rb") as f:
                source = f.read(MAX_CHECK_BYTES + 1)
            text = source.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(source) > MAX_CHECK_BYTES or "\r" in text:  # CR line ends: the edits below assume LF
            continue
        tally = tallies[language.name]
        tally.files += 1
        checked += 1
        if check_text(None, text, language, path):
            tally.broken_before += 1
        edits = {"append": appended(text, language)}
        within = inside(text, source, language)
        if within is not None:
            edits["inside"] = within
            tally.inside_edits += 1
        for name, after in edits.items():
            start = time.perf_counter()
            found = check_text(text, after, language, path)
            tally.times.append(time.perf_counter() - start)
            if found:
                tally.alarms[name] += len(found)
                if len(tally.examples) < 5:
                    tally.examples.append(f"{name}: {found[0].path}:{found[0].line}: {found[0].message}")
    return checked


def report(title: str, tallies: dict[str, Tally], seconds: float) -> int:
    print(f"\n## {title} ({seconds:.1f} s)\n")
    print("| language | files | already broken | inside edits | append alarms | inside alarms | check p50 | p95 |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    alarms = 0
    for name, t in sorted(tallies.items()):
        times = sorted(t.times) or [0.0]
        p95 = times[min(len(times) - 1, int(len(times) * 0.95))]
        print(
            f"| {name} | {t.files} | {t.broken_before} | {t.inside_edits} | {t.alarms['append']} | "
            f"{t.alarms['inside']} | {statistics.median(times) * 1e3:.2f} ms | {p95 * 1e3:.2f} ms |"
        )
        alarms += sum(t.alarms.values())
    total = sum(t.files for t in tallies.values())
    print(f"\n{total} files, {alarms} diagnostics")
    for t in tallies.values():
        for example in t.examples:
            print(f"  {example}")
    return alarms


def trees(options: argparse.Namespace) -> list[tuple[str, str]]:
    if options.tree:
        return [(tree, tree) for tree in options.tree]
    from benchmarks.corpus import kernel, typical

    # CPython's Lib without site-packages (SKIP_DIRS): the standard library itself.
    found = [("typical project", typical().root), ("CPython Lib", os.path.dirname(os.__file__))]
    if options.kernel:
        found.append(("Linux kernel", kernel()))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tree", action="append", help="a tree to measure (repeatable; default: the corpora)")
    parser.add_argument("--kernel", action="store_true", help="also the Linux kernel tree (scripts/fetch_corpus)")
    parser.add_argument("--limit", type=int, default=None, help="at most this many files per tree")
    parser.add_argument("--every", type=int, default=1, help="every Nth file only (a sample spread over the tree)")
    options = parser.parse_args(argv)
    alarms = 0
    for title, root in trees(options):
        tallies: dict[str, Tally] = defaultdict(Tally)
        start = time.perf_counter()
        measure(root, options.limit, tallies, options.every)
        alarms += report(f"{title}: {root}", tallies, time.perf_counter() - start)
    return 1 if alarms else 0


if __name__ == "__main__":
    sys.exit(main())
