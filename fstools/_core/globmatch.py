"""Glob patterns (`**`, `*`, `?`, `[abc]`, `[!abc]`, `{a,b}`) compiled to regular expressions.

Used wherever fstools matches paths itself (permission rules, LS ignores, sensitive
files) so every layer agrees on one glob dialect, the one fd and rg use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

# Characters escaped in literal text: Rust's regex (fd) accepts an escape only before one of
# these, and Python's re treats each escaped one as itself, so the output is valid in both.
_REGEX_META = frozenset("\\.+*?()|[]{}^$#&-~")
# Inside a class, these would be set operations (Rust: && -- ~~, nested [) or end it early.
_CLASS_META = frozenset("\\[]^&~-")


def _escape(text: str) -> str:
    return "".join("\\" + c if c in _REGEX_META else c for c in text)


def _class_end(pattern: str, i: int) -> int:
    """Index of the `]` closing the class opened at `i`, or -1 (fnmatch rules: a leading `]` is literal)."""
    j = i + 1
    if pattern[j : j + 1] in ("!", "^"):
        j += 1
    if pattern[j : j + 1] == "]":
        j += 1
    return pattern.find("]", j)


def _class(body: str) -> str:
    negate = body[:1] in ("!", "^")
    if negate:
        body = body[1:]
    out: list[str] = []
    for k, c in enumerate(body):
        is_range = c == "-" and 0 < k < len(body) - 1
        out.append(c if is_range or c not in _CLASS_META else "\\" + c)
    # A negated class never matches the separator: `[!a]` stays inside one path component.
    return f"[{'^/' if negate else ''}{''.join(out)}]"


def _braces_balanced(pattern: str) -> bool:
    depth = 0
    for c in pattern:
        depth += (c == "{") - (c == "}")
        if depth < 0:
            return False
    return depth == 0


def glob_to_regex(pattern: str) -> str:
    """The regular expression (unanchored) for a `/`-separated glob.

    Valid for both Python's re and Rust's regex, so fd can be handed exactly the
    expression fstools matches with. `**` as a whole component spans directories,
    `*`/`?` stay within one; unbalanced braces and unclosed classes are literal.
    """
    out: list[str] = []
    i, n = 0, len(pattern)
    braces = _braces_balanced(pattern)
    depth = 0  # nesting of {a,b} alternations
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and (j == n or pattern[j] == "/"):
                    if j == n:
                        out.append("(?s:.*)")
                        i = j
                    else:
                        out.append("(?s:.*/)?")
                        i = j + 1
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[" and (j := _class_end(pattern, i)) != -1:
            out.append(_class(pattern[i + 1 : j]))
            i = j
        elif c == "{" and braces:
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(_escape(pattern[i]))
        else:
            out.append(_escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def compile_glob(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile a glob matching a whole `/`-separated path (or a bare name)."""
    return re.compile(rf"(?:{glob_to_regex(pattern)})\Z", re.IGNORECASE if ignore_case else 0)


def glob_match(pattern: str, path: str) -> bool:
    """True when `path` matches `pattern`.

    A pattern without `/` matches the last path component (like a .gitignore line);
    one with `/` matches the whole path, and a relative one may match any suffix of
    whole components.
    """
    if "/" not in pattern:
        return compile_glob(pattern).match(path.rsplit("/", 1)[-1]) is not None
    rx = compile_glob(pattern.lstrip("/") if not pattern.startswith("/") else pattern)
    if pattern.startswith("/"):
        return rx.match(path) is not None
    parts = path.lstrip("/").split("/")
    return any(rx.match("/".join(parts[k:])) for k in range(len(parts)))


def byte_glob_superset(name_glob: str) -> str | None:
    """A glob for engines that match bytes (rg's globset) that accepts every name `name_glob` does.

    A `?` or class may have to match a multi-byte character, which a byte engine cannot
    do, so both widen to `*`; the exact check is left to the regex. None when the glob has
    no such form (`**`, escapes, unclosed classes or braces, or a `:`, which rg's type
    definitions cannot hold).
    """
    if "**" in name_glob or "\\" in name_glob or ":" in name_glob:
        return None
    out: list[str] = []
    i, depth = 0, 0
    while i < len(name_glob):
        c = name_glob[i]
        if c == "[":
            j = _class_end(name_glob, i)
            if j == -1:
                return None
            out.append("*")
            i = j
        else:
            depth += (c == "{") - (c == "}")
            if depth < 0:
                return None
            out.append("*" if c == "?" else c)
        i += 1
    return "".join(out) if depth == 0 else None


# Characters that make a glob more than a literal name.
MAGIC_CHARS = frozenset("*?[{\\")


class GlobSet:
    """`any(glob_match(p, path) for p in patterns)` for many patterns, in one cheap pass.

    Glob and Grep filter tens of thousands of results against the sensitive list, where
    one regex per pattern costs ~100 µs a path. Like ripgrep's globset, name patterns are
    sorted by shape: exact names go to a set, `*suffix` and `prefix*` to str methods, and
    only the rest to one regex; patterns with `/` share one regex searched from a `/`.
    """

    def __init__(self, patterns: Iterable[str]) -> None:
        self.patterns = tuple(patterns)
        names: set[str] = set()
        suffixes: list[str] = []
        prefixes: list[str] = []
        name_rx: list[str] = []
        slash_rx: list[str] = []
        rooted_rx: list[str] = []
        for p in self.patterns:
            if "/" in p:
                (rooted_rx if p.startswith("/") else slash_rx).append(glob_to_regex(p))
            elif not MAGIC_CHARS.intersection(p):
                names.add(p)
            elif p[:1] == "*" and p[1:2] != "*" and not MAGIC_CHARS.intersection(p[1:]):
                suffixes.append(p[1:])
            elif p[-1:] == "*" and not MAGIC_CHARS.intersection(p[:-1]):
                prefixes.append(p[:-1])
            else:
                name_rx.append(glob_to_regex(p))
        self._names = frozenset(names)
        self._suffixes = tuple(suffixes)
        self._prefixes = tuple(prefixes)
        self._name_rx = re.compile(f"(?:{'|'.join(name_rx)})\\Z") if name_rx else None
        # A relative pattern may match any trailing run of whole components: search from a "/".
        self._slash_rx = re.compile(f"/(?:{'|'.join(slash_rx)})\\Z") if slash_rx else None
        self._rooted_rx = re.compile(f"(?:{'|'.join(rooted_rx)})\\Z") if rooted_rx else None

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def matches(self, path: str) -> bool:
        name = path[path.rfind("/") + 1 :]
        if name in self._names or name.endswith(self._suffixes) or name.startswith(self._prefixes):
            return True
        if self._name_rx is not None and self._name_rx.match(name):
            return True
        if self._slash_rx is not None and self._slash_rx.search(path if path[:1] == "/" else "/" + path):
            return True
        return self._rooted_rx is not None and self._rooted_rx.match(path) is not None
