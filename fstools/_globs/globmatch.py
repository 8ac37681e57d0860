"""Glob patterns (`**`, `*`, `?`, `[abc]`, `[!abc]`, `{a,b}`) compiled to regular expressions.

Used wherever fstools matches paths itself (permission rules, LS ignores, sensitive
files) so every layer agrees on one glob dialect, the one fd and rg use.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

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
    """Whether every `{` has its `}`, as `_parse` reads them: a brace in a class or escaped is a character."""
    depth, i = 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "[" and (j := _class_end(pattern, i)) != -1:
            i = j
        else:
            depth += (c == "{") - (c == "}")
            if depth < 0:
                return False
        i += 1
    return depth == 0


# A parsed glob: a sequence of nodes. ("lit", c) one character, ("any",) `?`, ("class", body)
# `[...]`, ("star",) `*` within a component, ("starall",) a final `**`, ("dirs",) `**/`
# (any run of whole directories, none included), ("alt", options) `{a,b}`.
Node = tuple[Any, ...]
# `{a,b}` alternatives a pattern may expand to when it must be matched without regexes.
MAX_ALTERNATIVES = 4096


# Wildcards a glob may hold (a run of `*` counts once): each is a state of the automaton every
# path character steps through, so past this a glob costs more than any walk it filters.
MAX_WILDCARDS = 64


def collapse_stars(pattern: str) -> str:
    """`pattern` with each run of `*` inside a component cut to one (`a***b` is `a*b`), which means the
    same; a component that is exactly `**` (any depth) stays, escapes (`\\*`) too."""
    parts = []
    for part in pattern.split("/"):
        if part == "**" or "**" not in part:
            parts.append(part)
            continue
        out: list[str] = []
        i = 0
        while i < len(part):
            c = part[i]
            if c == "\\" and i + 1 < len(part):
                out.append(part[i : i + 2])
                i += 2
                continue
            if c == "[" and (end := _class_end(part, i)) != -1:
                out.append(part[i : end + 1])  # a `*` in a class is a character: `[*-**-!]` keeps its ranges
                i = end + 1
                continue
            if not (c == "*" and out and out[-1] == "*"):
                out.append(c)
            i += 1
        parts.append("".join(out))
    return "/".join(parts)


def count_wildcards(pattern: str) -> int:
    """The wildcards of a glob: each `?`, `[`, and run of `*` (escaped characters are literals)."""
    count, i, previous = 0, 0, ""
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i, previous = i + 2, ""
            continue
        if c in "?[" or (c == "*" and previous != "*"):
            count += 1
        previous = c
        i += 1
    return count


class GlobError(ValueError):
    """A glob fstools cannot match: a bad class range, or too many brace alternatives."""


def _parse(pattern: str) -> list[Node]:
    """The node sequence of a `/`-separated glob (unbalanced braces and unclosed classes are literal)."""
    root: list[Node] = []
    seq = root
    groups: list[tuple[list[list[Node]], list[Node]]] = []  # open {…}: its options, the sequence holding it
    i, n = 0, len(pattern)
    braces = _braces_balanced(pattern)
    while i < n:
        c = pattern[i]
        if c == "*":
            i = _star(pattern, i, seq)
            continue
        if c == "?":
            seq.append(("any",))
        elif c == "[" and (j := _class_end(pattern, i)) != -1:
            seq.append(("class", pattern[i + 1 : j]))
            i = j
        elif c == "{" and braces:
            options: list[list[Node]] = [[]]
            seq.append(("alt", options))
            groups.append((options, seq))
            seq = options[-1]
        elif c == "}" and groups:
            seq = groups.pop()[1]
        elif c == "," and groups:
            groups[-1][0].append([])
            seq = groups[-1][0][-1]
        elif c == "\\" and i + 1 < n:
            i += 1
            seq.append(("lit", pattern[i]))
        else:
            seq.append(("lit", c))
        i += 1
    return root


def _star(pattern: str, i: int, seq: list[Node]) -> int:
    """Add the node of the `*` or `**` at `i` to `seq`; the index just after it (a `**/` takes its `/`)."""
    if not pattern.startswith("**", i):
        seq.append(("star",))
        return i + 1
    at_start = i == 0 or pattern[i - 1] == "/"
    j, n = i + 2, len(pattern)
    if at_start and (j == n or pattern[j] == "/"):
        seq.append(("starall",) if j == n else ("dirs",))
        return j if j == n else j + 1
    seq.append(("star",))
    return j


_RENDER = {"any": "[^/]", "star": "[^/]*", "starall": "(?s:.*)", "dirs": "(?s:.*/)?"}


def _render(seq: list[Node]) -> str:
    out = []
    for node in seq:
        kind = node[0]
        if kind == "lit":
            out.append(_escape(node[1]))
        elif kind == "class":
            out.append(_class(node[1]))
        elif kind == "alt":
            out.append("(?:" + "|".join(_render(option) for option in node[1]) + ")")
        else:
            out.append(_RENDER[kind])
    return "".join(out)


def glob_to_regex(pattern: str) -> str:
    """The regular expression (unanchored) for a `/`-separated glob.

    Valid for both Python's re and Rust's regex, so fd can be handed exactly the
    expression fstools matches with. `**` as a whole component spans directories,
    `*`/`?` stay within one; unbalanced braces and unclosed classes are literal.
    """
    return _render(_parse(pattern))


def _expand(seq: list[Node]) -> list[list[Node]]:
    """The brace-free sequences `seq` stands for; GlobError past MAX_ALTERNATIVES."""
    flats: list[list[Node]] = [[]]
    for node in seq:
        if node[0] != "alt":
            for flat in flats:
                flat.append(node)
            continue
        tails = [t for option in node[1] for t in _expand(option)]
        if len(flats) * len(tails) > MAX_ALTERNATIVES:
            raise GlobError(f"the pattern expands to more than {MAX_ALTERNATIVES} {{a,b}} alternatives")
        flats = [flat + tail for flat in flats for tail in tails]
    return flats


def _regex_safe(flat: list[Node]) -> bool:
    """Whether a backtracking regex matches this in linear time: at most one `*` per component and at
    most one `**`, so no two quantifiers can compete for the same characters."""
    spanning = sum(node[0] in ("starall", "dirs") for node in flat)
    stars = 0
    for node in flat:
        if node == ("lit", "/") or node[0] == "dirs":
            stars = 0
        elif node[0] == "star":
            stars += 1
            if stars > 1:
                return False
    return spanning <= 1


class _Automaton:
    """A brace-free glob run as a set of positions (Thompson's construction): O(len(text) × len(glob))."""

    def __init__(self, flat: list[Node], ignore_case: bool) -> None:
        self.fold = ignore_case
        flags = re.IGNORECASE if ignore_case else 0
        self.tokens: list[tuple[str, Any]] = []
        for node in flat:
            if node[0] == "dirs":
                # `(?:.*/)?`: skipped whole (a pure epsilon position), or a loop that only a "/" leaves.
                self.tokens += [("skip", None), ("dirs", None)]
            elif node[0] == "lit":
                self.tokens.append(("lit", node[1].lower() if ignore_case else node[1]))
            elif node[0] == "class":
                self.tokens.append(("class", re.compile(_class(node[1]), flags).fullmatch))
            else:
                self.tokens.append((node[0], None))
        n = len(self.tokens)
        # Positions reachable without reading: a quantifier may match nothing.
        self.closure: list[frozenset[int]] = [frozenset()] * (n + 1)
        self.closure[n] = frozenset({n})
        for k in range(n - 1, -1, -1):
            kind = self.tokens[k][0]
            if kind == "skip":  # into the loop, or past it
                self.closure[k] = frozenset({k}) | self.closure[k + 1] | self.closure[min(k + 2, n)]
            elif kind in ("star", "starall"):
                self.closure[k] = frozenset({k}) | self.closure[k + 1]
            else:
                self.closure[k] = frozenset({k})

    def match(self, text: str, pos: int = 0) -> bool:
        tokens, closure, end = self.tokens, self.closure, len(self.tokens)
        states = closure[0]
        for ch in text[pos:]:
            low = ch.lower() if self.fold else ch
            following: set[int] = set()
            for k in states:
                if k == end:
                    continue
                kind, data = tokens[k]
                if kind == "lit":
                    if data == low:
                        following |= closure[k + 1]
                elif kind == "any" or kind == "star":
                    if ch != "/":
                        following |= closure[k + 1] if kind == "any" else closure[k]
                elif kind == "class":
                    if data(ch):
                        following |= closure[k + 1]
                elif kind != "skip":  # starall, dirs: any character; a "/" also ends `**/`
                    following |= closure[k]
                    if kind == "dirs" and ch == "/":
                        following |= closure[k + 1]
            if not following:
                return False
            states = frozenset(following)
        return end in states


class GlobMatcher:
    """A glob compiled for matching a whole string in time linear in the string.

    Globs with at most one quantifier per component (nearly all) become one regex; the
    others, which a backtracking regex could take exponential time on (`*a*a*a*b`), run
    as automata, one per brace alternative.
    """

    def __init__(self, pattern: str, ignore_case: bool = False) -> None:
        self.pattern = pattern
        pattern = collapse_stars(pattern)
        wildcards = count_wildcards(pattern)
        if wildcards > MAX_WILDCARDS:
            raise GlobError(f"the pattern holds {wildcards} wildcards; at most {MAX_WILDCARDS} (`*`, `?`, `[...]`)")
        seq = _parse(pattern)
        flats = _expand(seq)
        self.safe = all(_regex_safe(flat) for flat in flats)
        self._regex: re.Pattern[str] | None = None
        self._automata: list[_Automaton] = []
        try:
            if self.safe:
                self._regex = re.compile(rf"(?:{_render(seq)})\Z", re.IGNORECASE if ignore_case else 0)
            else:
                self._automata = [_Automaton(flat, ignore_case) for flat in flats]
        except re.error as exc:  # a class such as [z-a]
            raise GlobError(f"invalid glob {pattern!r}: {exc}") from None

    def match(self, text: str, pos: int = 0, endpos: int | None = None) -> bool:
        """Whether `text[pos:endpos]` matches the whole glob."""
        end = len(text) if endpos is None else endpos
        if self._regex is not None:
            return self._regex.match(text, pos, end) is not None
        return any(a.match(text[:end], pos) for a in self._automata)


@lru_cache(maxsize=512)
def compile_glob(pattern: str, ignore_case: bool = False) -> GlobMatcher:
    """Compile a glob matching a whole `/`-separated path (or a bare name)."""
    return GlobMatcher(pattern, ignore_case)


def glob_match(pattern: str, path: str, ignore_case: bool = False) -> bool:
    """True when `path` matches `pattern`.

    A pattern without `/` matches the last path component (like a .gitignore line);
    one with `/` matches the whole path, and a relative one may match any suffix of
    whole components.
    """
    if "/" not in pattern:
        return compile_glob(pattern, ignore_case).match(path.rsplit("/", 1)[-1])
    rx = compile_glob(pattern.lstrip("/") if not pattern.startswith("/") else pattern, ignore_case)
    if pattern.startswith("/"):
        return rx.match(path)
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
    i, depth, group = 0, 0, 0  # `group`: where the outermost open `{` is in `out`
    nested = False
    while i < len(name_glob):
        c = name_glob[i]
        if c == "[":
            j = _class_end(name_glob, i)
            if j == -1:
                return None
            out.append("*")
            i = j
        else:
            if c == "{":
                group = len(out) if depth == 0 else group
                nested = nested or depth > 0
            depth += (c == "{") - (c == "}")
            if depth < 0:
                return None
            out.append("*" if c == "?" else c)
            if c == "}" and depth == 0 and nested:
                # rg's globset does not nest braces: the whole group widens to `*`.
                del out[group:]
                out.append("*")
                nested = False
        i += 1
    return "".join(out) if depth == 0 else None


# Characters that make a glob more than a literal name.
MAGIC_CHARS = frozenset("*?[{\\")


def _shape(p: str) -> tuple[str, str]:
    """How GlobSet matches the pattern `p`: by a str method ("exact" name, "suffix", "prefix", a
    "tail" or a "dir" of a path) and the string it compares, or by a regex of its kind ("name",
    "slash", "rooted") and the glob it is made from."""
    if "/" in p:
        kind = "rooted" if p.startswith("/") else "slash"
        # A relative pattern matches any trailing run of components: a leading `**/` adds nothing.
        body = p[3:] if kind == "slash" and p.startswith("**/") and len(p) > 3 else p
        if kind == "slash" and not MAGIC_CHARS.intersection(body):
            return "tail", "/" + body  # `.aws/credentials`: a str.endswith
        if kind == "slash" and body.endswith("/**") and not MAGIC_CHARS.intersection(body[:-3]):
            return "dir", "/" + body[:-2]  # `.ssh/**`: "/.ssh/" anywhere in the path
        return kind, body
    if not MAGIC_CHARS.intersection(p):
        return "exact", p
    if p[:1] == "*" and p[1:2] != "*" and not MAGIC_CHARS.intersection(p[1:]):
        return "suffix", p[1:]
    if p[-1:] == "*" and not MAGIC_CHARS.intersection(p[:-1]):
        return "prefix", p[:-1]
    return "name", p


class GlobSet:
    """`any(glob_match(p, path) for p in patterns)` for many patterns, in one cheap pass.

    Glob and Grep filter tens of thousands of results against the sensitive list, where
    one regex per pattern costs ~100 µs a path. Like ripgrep's globset, name patterns are
    sorted by shape: exact names go to a set, `*suffix` and `prefix*` to str methods, and
    only the rest to one regex; patterns with `/` share one regex searched from a `/`.
    A pattern a backtracking regex could be slow on gets its own GlobMatcher instead.
    GlobError when a pattern has too many brace alternatives.
    """

    def __init__(self, patterns: Iterable[str], ignore_case: bool = False) -> None:
        self.patterns = tuple(patterns)
        self.ignore_case = ignore_case
        fold = str.lower if ignore_case else str
        names: set[str] = set()
        suffixes: list[str] = []
        prefixes: list[str] = []
        slash_tails: list[str] = []
        slash_dirs: list[str] = []
        buckets: dict[str, list[str]] = {"name": [], "slash": [], "rooted": []}
        self._slow: dict[str, list[GlobMatcher]] = {"name": [], "slash": [], "rooted": []}
        # Case-insensitive: patterns and paths are both lowercased (cheaper than IGNORECASE regexes).
        plain = {"exact": names.add, "suffix": suffixes.append, "prefix": prefixes.append}
        plain.update(tail=slash_tails.append, dir=slash_dirs.append)
        for p in map(fold, self.patterns):
            kind, body = _shape(p)
            if kind in plain:
                plain[kind](body)
                continue
            seq = _parse(body)
            if all(_regex_safe(flat) for flat in _expand(seq)):
                # Checked here, compiled once joined: a regex per pattern cost a new process
                # ~0.7 ms each for the ~80 sensitive patterns.
                buckets[kind].append(_render(seq))
            else:
                self._slow[kind].append(compile_glob(body))
        self._names = frozenset(names)
        self._suffixes = tuple(suffixes)
        self._prefixes = tuple(prefixes)
        self._slash_tails = tuple(slash_tails)
        self._slash_dirs = re.compile("|".join(map(re.escape, slash_dirs))) if slash_dirs else None
        self._any_slow = any(self._slow.values())

        def joined(kind: str, lead: str = "") -> re.Pattern[str] | None:
            rx = buckets[kind]
            try:
                return re.compile(f"{lead}(?:{'|'.join(rx)})\\Z") if rx else None
            except re.error:
                for p in self.patterns:  # the pattern at fault, as compiling it alone names it
                    compile_glob(fold(p))
                raise

        self._name_rx = joined("name")
        # A relative pattern may match any trailing run of whole components: search from a "/".
        self._slash_rx = joined("slash", "/")
        self._rooted_rx = joined("rooted")

    def __bool__(self) -> bool:
        return bool(self.patterns)

    def _slow_matches(self, path: str, name: str) -> bool:
        if any(m.match(name) for m in self._slow["name"]):
            return True
        if any(m.match(path) for m in self._slow["rooted"]):
            return True
        if not self._slow["slash"]:
            return False
        starts = ([0] if path[:1] != "/" else []) + [i + 1 for i, c in enumerate(path) if c == "/"]
        return any(m.match(path, k) for m in self._slow["slash"] for k in starts)

    def matches(self, path: str) -> bool:
        if self.ignore_case:
            path = path.lower()
        name = path[path.rfind("/") + 1 :]
        if name in self._names or name.endswith(self._suffixes) or name.startswith(self._prefixes):
            return True
        if self._name_rx is not None and self._name_rx.match(name):
            return True
        rooted = path if path[:1] == "/" else "/" + path
        if rooted.endswith(self._slash_tails) or (self._slash_dirs is not None and self._slash_dirs.search(rooted)):
            return True
        if self._slash_rx is not None and self._slash_rx.search(rooted):
            return True
        if self._rooted_rx is not None and self._rooted_rx.match(path) is not None:
            return True
        return self._any_slow and self._slow_matches(path, name)
