"""The syntax errors a change introduced into a text: parsed after, and before only when needed.

`check_text` is the whole check for one text in a known language; the change tools reach it
through `review.review_change`. It parses the new text; only when that has errors is the old
text parsed too, and only errors it did not have are reported (see `compare`). Python's
errors must also be errors to the running interpreter (tree-sitter's grammar lags the
newest syntax; the interpreter alone does not know other versions'), so a file is never
called broken by one parser's blind spot. JavaScript and C headers get a second grammar's
opinion the same way (TSX for Flow or JSX in `.js`; C++ for a `.h`): both must agree.
"""

from __future__ import annotations

import os

from .compare import Window, first_introduced, introduced, window
from .diagnostics import Diagnostic
from .languages import LANGUAGES, Language, language_for_path, parse
from .problems import Problem, place, python_problem, renamed, toml_loader, toml_problem, tree_problems
from .trees import parse_change, prime

MAX_CHECK_BYTES = 1024 * 1024  # parsing costs ~0.1 ms per KB: larger (generated) files are not checked
HEAD_BYTES = 256  # bytes of a file a #! line is looked for in, as for a change
_SECOND_OPINION = {".h": "cpp", ".js": "tsx", ".jsx": "tsx", ".mjs": "tsx", ".cjs": "tsx"}


def can_check(language: Language) -> bool:
    """Whether texts of `language` can be checked here (its parser is installed)."""
    if language.name == "toml":
        return toml_loader() is not None or language.installed
    return language.installed


def prime_after_read(path: str, data: bytes) -> None:
    """The file at `path` was just read (`data`, its bytes): parse it in the background for the check
    of the change that usually follows (see `trees.prime`). The text is the one a change tool will
    check: UTF-8 without its BOM; another encoding's bytes just never match and are parsed then."""
    language = language_for_path(path, data[:HEAD_BYTES])
    if language is None or language.name == "toml" or not language.installed or len(data) > MAX_CHECK_BYTES:
        return
    prime(language, path, data.removeprefix(b"\xef\xbb\xbf"))


def check_text(before: str | None, after: str, language: Language | str, path: str = "") -> list[Diagnostic]:
    """The syntax errors `after` has that `before` did not: what a change from one to the other broke.

    Args:
        before: The text before the change; None (or "") when it is new: every error counts.
        after: The text after the change.
        language: A `Language`, or its name ("python", "tsx", "json", ...; see `LANGUAGES`).
        path: Names the text in the diagnostics (its file, or "cell 3" for a notebook's cell).

    Returns:
        Diagnostics with 1-based lines and columns in `after` (a cell's own lines, for a
        cell), each quoting its line; empty when the change broke nothing, the text is over
        `MAX_CHECK_BYTES`, or the language's parser is not installed (`can_check`).

    A notebook's code cell is checked by passing the cell's source before and after the edit
    and the notebook's language (`check_text(old_source, new_source, "python", "cell 3")`).
    """
    lang = LANGUAGES[language] if isinstance(language, str) else language
    new = after.encode("utf-8", "surrogatepass")
    if len(new) > MAX_CHECK_BYTES or not can_check(lang):
        return []
    old = (before or "").encode("utf-8", "surrogatepass")
    found = _introduced(lang, old, new, path)
    return [_diagnostic(new, problem, path) for problem in found]


def _introduced(lang: Language, old: bytes, new: bytes, path: str) -> list[Problem]:
    if lang.name == "toml" and toml_loader() is not None:
        return _first_only(toml_problem, old, new)
    found = _tree_introduced(lang, old, new, path)
    if not found:
        return []
    if lang.name == "python":
        return _confirmed_by_python(found, old, new)
    second = _SECOND_OPINION.get(os.path.splitext(path)[1].lower())
    if second is not None and LANGUAGES[second].installed and not _tree_introduced(LANGUAGES[second], old, new, ""):
        return []
    return found


def _tree_introduced(lang: Language, old: bytes, new: bytes, path: str) -> list[Problem]:
    """tree-sitter's errors in `new` that `old` did not have (`path` keys the kept trees)."""
    changed = window(old, new)
    tree, old_tree = parse_change(lang, path, old, new, changed)
    if tree is None or not tree.root_node.has_error:
        return []
    after = tree_problems(tree)
    if not old:
        return after
    if old_tree is None:
        old_tree = parse(lang, old)
    before = tree_problems(old_tree) if old_tree is not None and old_tree.root_node.has_error else []
    # An error moved to the start of the change names the text there, not a token before it.
    return [p if p in after else renamed(p, new) for p in introduced(before, after, changed)]


def _first_only(parser: object, old: bytes, new: bytes) -> list[Problem]:
    assert callable(parser)
    after = parser(new)
    if after is None:
        return []
    before = parser(old) if old else None
    found = first_introduced(before, after, window(old, new))
    return [found] if found is not None else []


def _confirmed_by_python(found: list[Problem], old: bytes, new: bytes) -> list[Problem]:
    """tree-sitter's new errors, if the interpreter agrees the text is broken; its own words
    when its first error is the change's (inside the change, or the old text was valid)."""
    own = python_problem(new)
    if own is None:
        return []  # valid to this interpreter: a gap in the grammar, not the model's error
    changed: Window = window(old, new)
    earlier = python_problem(old) if old else None
    if earlier is None or first_introduced(earlier, own, changed) or changed.contains_new(own.start):
        return [own]
    return found


def _diagnostic(source: bytes, problem: Problem, path: str) -> Diagnostic:
    where = place(source, problem.start, problem.missing)
    return Diagnostic(path, where.line, where.column, problem.message, text=where.text)
