"""From a Grep pattern to a trigram query: an AND/OR tree every matching file satisfies.

The analysis is the one of Russ Cox's codesearch (regexp/index): for each piece of the
regex, the set of strings it matches exactly while that set is small, else the
prefixes and suffixes its matches start and end with, and a trigram query; concatenation
crosses the sets, alternation unions them. The parser reads rg's (Rust) syntax and only
what it is sure of: a construct it does not know makes the whole pattern `ALL` (every
file a candidate), so a gap in the parser costs speed, never a result.

Trigrams are over the UTF-8 bytes of the pattern's characters. Under case-insensitive
matching an ASCII letter stands for both its cases, except `k` and `s`, which also match
the Kelvin sign and the long s; a non-ASCII letter's variants are other bytes. Those
become "any character".
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TypeAlias

from .grams import ANY_FOLLOW, follow_bit

MAX_EXACT = 7
MAX_SET = 20
# Escaped ASCII punctuation is a literal, except these word-boundary assertions.
_ASSERTION_ESCAPES = frozenset("<>")
_CLASS_ESCAPES = frozenset("dDwWsS")
_ASSERTIONS = frozenset("bBAz")
_REPEAT_CHARS = frozenset("*+?{")
_FLAG_CHARS = frozenset("imsUuR-")


class Unsupported(Exception):
    """The pattern uses something this parser does not model."""


@dataclass(frozen=True, slots=True)
class AllFiles:
    """Every file is a candidate: nothing narrows the search."""


@dataclass(frozen=True, slots=True)
class Gram:
    """Files holding trigram `code`, followed by a byte in `follow` (the follow-mask bit of the
    byte after the trigram in the literal, or ANY_FOLLOW at its end)."""

    code: int
    follow: int


@dataclass(frozen=True, slots=True)
class And:
    """Files satisfying every one of `parts`."""

    parts: tuple[Query, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """Files satisfying at least one of `parts`."""

    parts: tuple[Query, ...]


Query: TypeAlias = AllFiles | Gram | And | Or
ALL = AllFiles()


def and_(a: Query, b: Query) -> Query:
    if isinstance(a, AllFiles):
        return b
    if isinstance(b, AllFiles) or a == b:
        return a
    parts = (a.parts if isinstance(a, And) else (a,)) + (b.parts if isinstance(b, And) else (b,))
    return And(tuple(dict.fromkeys(parts)))


def or_(a: Query, b: Query) -> Query:
    if isinstance(a, AllFiles) or isinstance(b, AllFiles):
        return ALL
    if a == b:
        return a
    parts = (a.parts if isinstance(a, Or) else (a,)) + (b.parts if isinstance(b, Or) else (b,))
    return Or(tuple(dict.fromkeys(parts)))


def _gram(s: bytes, i: int) -> int:
    return (s[i] << 16) | (s[i + 1] << 8) | s[i + 2]


def _all_trigrams(s: bytes) -> Query:
    """Every trigram of `s`, each with the follow bit of the byte after it (ANY_FOLLOW at the end)."""
    grams = tuple(
        dict.fromkeys(
            Gram(_gram(s, i), follow_bit(s[i + 3]) if i + 3 < len(s) else ANY_FOLLOW) for i in range(len(s) - 2)
        )
    )
    return grams[0] if len(grams) == 1 else And(grams)


def and_trigrams(q: Query, strings: set[bytes]) -> Query:
    """`q` AND (one of `strings` occurs): the OR of each string's trigrams ANDed (no-op if one is short)."""
    if not strings or min(len(s) for s in strings) < 3:
        return q
    # Built in one pass each: what folding and_ over the trigrams and or_ over the strings gives.
    alternatives = tuple(dict.fromkeys(_all_trigrams(s) for s in sorted(strings)))
    return and_(q, alternatives[0] if len(alternatives) == 1 else Or(alternatives))


def _cross(a: set[bytes], b: set[bytes]) -> set[bytes]:
    return {x + y for x in a for y in b}


@dataclass
class Info:
    """What a piece of the regex tells: exact strings (None: too many), else prefixes and suffixes."""

    can_empty: bool
    exact: set[bytes] | None
    prefix: set[bytes] = field(default_factory=set)
    suffix: set[bytes] = field(default_factory=set)
    match: Query = ALL

    def add_exact(self) -> None:
        if self.exact is not None:
            self.match = and_trigrams(self.match, self.exact)

    def _simplify_set(self, strings: set[bytes], suffix: bool) -> set[bytes]:
        self.match = and_trigrams(self.match, strings)
        n = 2
        while True:
            cut = {(s[-n:] if n else b"") if suffix else s[:n] for s in strings}
            if len(cut) <= MAX_SET or n == 0:
                return cut
            n -= 1

    def simplify(self, force: bool) -> None:
        exact = self.exact
        if exact is not None and (len(exact) > MAX_EXACT or (force and min(map(len, exact)) >= 3)):
            self.add_exact()
            self.prefix = {s if len(s) < 3 else s[:2] for s in exact}
            self.suffix = {s if len(s) < 3 else s[-2:] for s in exact}
            self.exact = None
        if self.exact is None:
            self.prefix = self._simplify_set(self.prefix, False)
            self.suffix = self._simplify_set(self.suffix, True)


def any_char() -> Info:
    return Info(False, None, {b""}, {b""})


def any_match() -> Info:
    return Info(True, None, {b""}, {b""})


def empty() -> Info:
    return Info(True, {b""})


def literal(options: set[bytes]) -> Info:
    return Info(False, set(options))


def concat(x: Info, y: Info) -> Info:
    xy = Info(x.can_empty and y.can_empty, None, match=and_(x.match, y.match))
    if x.exact is not None and y.exact is not None:
        xy.exact = _cross(x.exact, y.exact)
    else:
        xy.prefix = _cross(x.exact, y.prefix) if x.exact is not None else set(x.prefix)
        if x.can_empty:
            xy.prefix |= y.exact if y.exact is not None else y.prefix
        xy.suffix = _cross(x.suffix, y.exact) if y.exact is not None else set(y.suffix)
        if y.can_empty:
            xy.suffix |= x.exact if x.exact is not None else x.suffix
        if x.exact is None and y.exact is None and len(x.suffix) <= MAX_SET and len(y.prefix) <= MAX_SET:
            xy.match = and_trigrams(xy.match, _cross(x.suffix, y.prefix))
    xy.simplify(False)
    return xy


def alternate(x: Info, y: Info) -> Info:
    xy = Info(x.can_empty or y.can_empty, None)
    if x.exact is not None and y.exact is not None:
        xy.exact = x.exact | y.exact
    elif x.exact is not None:
        xy.prefix = x.exact | y.prefix
        xy.suffix = x.exact | y.suffix
        x.add_exact()
    elif y.exact is not None:
        xy.prefix = x.prefix | y.exact
        xy.suffix = x.suffix | y.exact
        y.add_exact()
    else:
        xy.prefix = x.prefix | y.prefix
        xy.suffix = x.suffix | y.suffix
    xy.match = or_(x.match, y.match)
    xy.simplify(False)
    return xy


def repeat(x: Info, minimum: int, maximum: int | None) -> Info:
    if minimum == 0:
        return alternate(x, empty()) if maximum == 1 else any_match()
    # At least one x: matches still start with x's prefixes and end with its suffixes.
    info = Info(x.can_empty, None, set(x.prefix), set(x.suffix), x.match)
    if x.exact is not None:
        info.prefix, info.suffix = set(x.exact), set(x.exact)
    info.simplify(False)
    return info


class _RegexParser:
    def __init__(self, pattern: str, case_insensitive: bool) -> None:
        self.s = pattern
        self.i = 0
        self.ci = case_insensitive

    def peek(self) -> str:
        return self.s[self.i] if self.i < len(self.s) else ""

    def char(self, c: str) -> Info:
        if c.isascii():
            if self.ci and c.isalpha():
                return any_char() if c.lower() in "ks" else literal({c.lower().encode(), c.upper().encode()})
            return literal({c.encode()})
        if self.ci or "\ud800" <= c <= "\udfff":
            return any_char()
        return literal({c.encode()})

    def alternation(self) -> Info:
        info = self.concatenation()
        while self.peek() == "|":
            self.i += 1
            info = alternate(info, self.concatenation())
        return info

    def concatenation(self) -> Info:
        info = empty()
        while self.i < len(self.s) and self.peek() not in "|)":
            info = concat(info, self.repetition())
        return info

    def repetition(self) -> Info:
        info = self.atom()
        while self.peek() in _REPEAT_CHARS and self.peek():
            c = self.peek()
            self.i += 1
            if c == "{":
                close = self.s.find("}", self.i)
                body = self.s[self.i : close] if close >= 0 else ""
                low = body.split(",", 1)[0].strip()
                if not low.isdigit() or not all(p.strip().isdigit() or p.strip() == "" for p in body.split(",")):
                    raise Unsupported("repetition")
                self.i = close + 1
                high = body.split(",", 1)[1].strip() if "," in body else low
                info = repeat(info, int(low), int(high) if high else None)
            else:
                info = repeat(info, 1 if c == "+" else 0, 1 if c == "?" else None)
            if self.peek() == "?":  # lazy: the same strings
                self.i += 1
        return info

    def atom(self) -> Info:
        c = self.peek()
        self.i += 1
        if c == "(":
            return self.group()
        if c == "[":
            return self.char_class()
        if c == "\\":
            return self.escape()
        if c == ".":
            return any_char()
        if c in "^$":
            return empty()
        if c in "*+?{)":
            raise Unsupported("misplaced operator")
        return self.char(c)

    def group(self) -> Info:
        if self.peek() == "?":
            self.i += 1
            if self.peek() == ":":
                self.i += 1
            elif self.s.startswith("P<", self.i) or (
                self.peek() == "<" and self.s[self.i + 1 : self.i + 2] not in "=!"
            ):
                close = self.s.find(">", self.i)
                if close < 0:
                    raise Unsupported("group name")
                self.i = close + 1
            else:
                flags = ""
                while self.peek() and self.peek() in _FLAG_CHARS:
                    flags += self.peek()
                    self.i += 1
                if "i" in flags and not self.ci:
                    raise _CaseInsensitive()
                if self.peek() == ")":
                    self.i += 1
                    return empty()
                if self.peek() != ":":
                    raise Unsupported("group flags")
                self.i += 1
        info = self.alternation()
        if self.peek() != ")":
            raise Unsupported("unclosed group")
        self.i += 1
        return info

    def escape(self) -> Info:
        c = self.peek()
        self.i += 1
        if not c:
            raise Unsupported("trailing backslash")
        if c in _CLASS_ESCAPES:
            return any_char()
        if c in "pP":
            if self.peek() == "{":
                close = self.s.find("}", self.i)
                if close < 0:
                    raise Unsupported("unicode class")
                self.i = close + 1
            elif self.peek():
                self.i += 1
            return any_char()
        if c in _ASSERTIONS:
            if self.peek() == "{":
                raise Unsupported("special word boundary")
            return empty()
        if c in _ASSERTION_ESCAPES:
            return empty()
        if c.isascii() and not c.isalnum() and c.isprintable() and c != " ":
            return self.char(c)
        raise Unsupported(f"escape \\{c}")

    def char_class(self) -> Info:
        """A bracket class: the set of its characters when it is a short list of plain ones, else any character."""
        members: set[str] = set()
        simple = True
        if self.peek() == "^":
            simple = False
            self.i += 1
        if self.peek() == "]":
            members.add("]")
            self.i += 1
        while True:
            c = self.peek()
            if not c:
                raise Unsupported("unclosed class")
            self.i += 1
            if c == "]":
                break
            if c == "[":
                self.i -= 1
                self._skip_nested()
                simple = False
            elif c == "\\":
                self._class_escape()
                simple = False
            elif c in "&-~" and self.peek() == c:
                self.i += 1
                simple = False
            elif self.peek() == "-" and self.s[self.i + 1 : self.i + 2] not in ("", "]"):
                simple = self._class_range(c, members) and simple
            else:
                members.add(c)
        return self._class_of(members) if simple else any_char()

    def _class_escape(self) -> None:
        """Skip the escape after a backslash in a class (`\\x{...}`, `\\p{...}` with their braces)."""
        nxt = self.peek()
        self.i += 1
        if nxt in "xuUpP" and self.peek() == "{":
            close = self.s.find("}", self.i)
            if close < 0:
                raise Unsupported("class escape")
            self.i = close + 1

    def _class_range(self, start: str, members: set[str]) -> bool:
        """Take the range `start`-end of a class: its characters join `members` when it is short and
        plain (True), else the class counts as any character (False)."""
        end = self.s[self.i + 1]
        self.i += 2
        if end in "[\\":
            raise Unsupported("class range")
        if ord(end) < ord(start) or ord(end) - ord(start) > 16:
            return False
        members.update(chr(o) for o in range(ord(start), ord(end) + 1))
        return True

    def _class_of(self, members: set[str]) -> Info:
        """A class of plain `members`: the set of their literals, or any character for none or many."""
        if not members or len(members) > 16:
            return any_char()
        options: set[bytes] = set()
        for m in members:
            info = self.char(m)
            if info.exact is None:
                return any_char()
            options |= info.exact
        return literal(options)

    def _skip_nested(self) -> None:
        """Skip a nested class or `[:name:]` starting at '[' (its own brackets may nest)."""
        depth = 0
        while True:
            c = self.peek()
            if not c:
                raise Unsupported("unclosed class")
            self.i += 1
            if c == "\\":
                self.i += 1
            elif c == "[":
                depth += 1
                if self.peek() == "^":
                    self.i += 1
                if self.peek() == "]":
                    self.i += 1
            elif c == "]":
                depth -= 1
                if depth == 0:
                    return


class _CaseInsensitive(Exception):
    """An inline `(?i)`: the pattern is analysed again as case-insensitive (a superset)."""


@dataclass(frozen=True)
class TrigramPlan:
    query: Query
    reason: str | None = None  # why every file is a candidate, when that is so
    # Case-sensitive patterns that match only a few exact strings: every matching file
    # contains one of them byte for byte (a check cheaper than rg's for a few files).
    literals: frozenset[bytes] | None = None


def plan(pattern: str, *, case_insensitive: bool, fixed_strings: bool) -> TrigramPlan:
    """The trigram query every file matching `pattern` satisfies (ALL when nothing narrows it)."""
    if "\n" in pattern or "\r" in pattern:
        return TrigramPlan(ALL, "line break in pattern")
    if fixed_strings:
        parser = _RegexParser(pattern, case_insensitive)
        info = empty()
        for c in pattern:
            info = concat(info, parser.char(c))
        literals = _literals(info, case_insensitive)  # before _finish, which folds the exact strings away
        return TrigramPlan(_finish(info), literals=literals)
    for ci in (case_insensitive, True):
        parser = _RegexParser(pattern, ci)
        try:
            info = parser.alternation()
            if parser.i != len(pattern):
                return TrigramPlan(ALL, "unbalanced parenthesis")
            literals = _literals(info, ci)
            return TrigramPlan(_finish(info), literals=literals)
        except _CaseInsensitive:
            continue
        except (Unsupported, IndexError, ValueError) as exc:
            return TrigramPlan(ALL, str(exc) or "unsupported")
    return TrigramPlan(ALL, "unsupported")


def _literals(info: Info, case_insensitive: bool) -> frozenset[bytes] | None:
    if case_insensitive or info.exact is None or min(map(len, info.exact), default=0) < 3:
        return None
    return frozenset(info.exact)


def _finish(info: Info) -> Query:
    info.simplify(True)
    info.add_exact()
    return info.match
