"""C conditional compilation a grammar cannot read, and the branch the parse keeps instead.

tree-sitter reads `#if ... #else ... #endif` where each branch holds whole declarations or
statements. Code written for the preprocessor splits other things between branches, and the
parse then loses the definition around them:

    #ifdef X                          struct file_operations fops = {      int f(int a,
    int split(int a) {                    .open = x_open,                  #ifdef X
    #else                             #ifdef CONFIG_COMPAT                       int b
    int split(long a) {                   .compat_ioctl = x_ioctl,         #else
    #endif                            #endif                                     long b
        return a;                     };                                   #endif
    }                                                                          ) { ... }

A group (`#if` to its `#endif`) is resolved when a branch leaves its braces or parentheses
unbalanced (a split head, `} else {`), when it stands inside parentheses or an initializer's
braces, or between a function's head and a body per configuration (`int f(void)` `#ifdef X`
`{ ... }` `#else` `{ ... }` `#endif`): where the grammar has no place for a directive. Resolving keeps one branch, as a
compiler would with one configuration and as universal-ctags does: the first, but the `#else`
of `#if 0` and of `#ifdef __cplusplus` (a C file is not compiled as C++). Its directive lines
and the other branches are blanked (spaces, newlines kept: every offset and line stays), and
their identifiers are still uses of those names. Groups the grammar reads are left alone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .languages import overdue, paced

# What the scan sees: strings, characters and comments (skipped, so that their brackets do not
# count), conditional directives, other directives (skipped whole: a macro body's braces are text),
# and brackets.
_TOKENS = re.compile(
    rb'"(?:\\.|[^"\\\n])*"'
    rb"|'(?:\\.|[^'\\\n])*'"
    rb"|/\*.*?(?:\*/|\Z)"
    rb"|//[^\n]*"
    rb"|^[ \t]*\#[ \t]*(?P<directive>ifdef|ifndef|if|elifdef|elifndef|elif|else|endif)\b"
    rb"(?P<rest>(?:/\*.*?\*/|//[^\n]*|[^\n\\/]|/(?![*/])|\\.)*)"
    rb"|^[ \t]*\#(?:[^\n\\]|\\.)*"
    rb"|[{}()\[\]]",
    re.M | re.S,
)
_OPENING = {ord("{"): 0, ord("("): 1, ord("["): 1}
_CLOSING = {ord("}"): 0, ord(")"): 1, ord("]"): 1}
_ALWAYS_FALSE = re.compile(rb"\s*(?:0|\(\s*0\s*\)|defined\s*\(?\s*__cplusplus\s*\)?|__cplusplus)\s*(?:/[*/].*)?$", re.S)
# The conditional directives alone, for a first look that decides whether the scan is needed.
# (`#` first: the regex engine looks for it at C speed; whether it starts its line is checked apart.)
_DIRECTIVES = re.compile(rb"#[ \t]*(ifdef|ifndef|if|elifdef|elifndef|elif|else|endif)\b")
_BLANK = b" \t\r\n"


@dataclass
class _Branch:
    head: tuple[int, int, int]  # the directive line: its start, where its keyword ends, its end
    end: int = -1  # where the branch ends: the start of the next directive line of its group
    items: list[int | _Group] = field(default_factory=list)  # positions of brackets, nested groups
    low: tuple[int, int] = (0, 0)  # the lowest depth (braces, parentheses) reached, from 0 at its start
    net: tuple[int, int] = (0, 0)  # the depth at its end


@dataclass
class _Group:
    branches: list[_Branch]
    always_false: bool  # `#if 0`, `#ifdef __cplusplus`: the first branch is never compiled here
    endif: tuple[int, int] | None = None  # the `#endif` line's start and its end

    @property
    def kept(self) -> int | None:
        """The index of the branch a resolved group keeps (None: nothing is compiled)."""
        if not self.always_false:
            return 0
        return 1 if len(self.branches) > 1 else None


@dataclass(frozen=True)
class Hidden:
    """What to blank before the parse, the parts of it whose identifiers are uses, and for each
    resolved group the range of the branch kept with those of the branches blanked."""

    blank: list[tuple[int, int]] = field(default_factory=list)
    words: list[tuple[int, int]] = field(default_factory=list)
    alternatives: list[tuple[tuple[int, int], list[tuple[int, int]]]] = field(default_factory=list)


def hidden(source: bytes, deadline: float | None = None) -> Hidden:
    """The byte ranges of the groups to resolve in C `source`: see the module docstring.

    Parameters: `source`, the file's bytes; `deadline`, the time.monotonic() past which ParseTimeout.
    """
    if not _worth_a_scan(source, deadline):
        return Hidden()
    top = _scan(source, deadline)
    found = Hidden()
    _walk(source, top, [], found, {}, deadline)
    return found


def _worth_a_scan(source: bytes, deadline: float | None) -> bool:
    """Whether a group may need resolving, judged from the raw text (strings and comments counted
    too): a branch whose brackets do not balance or close first, or a group after a `,`, `(`, `[`,
    `=` or an initializer's `{`, or after a comment. Most files have none and skip the full scan."""
    groups: list[list[int]] = []  # per open group: the ends of its directive lines so far
    looked: dict[int, int] = {}
    for match in paced(_DIRECTIVES.finditer(source), deadline):
        line_start = source.rfind(b"\n", 0, match.start()) + 1
        if source[line_start : match.start()].strip(b" \t"):
            continue  # not a directive: text before it on its line
        keyword = match.group(1)
        line_end = source.find(b"\n", match.end())
        line_end = len(source) if line_end == -1 else line_end
        if keyword in (b"if", b"ifdef", b"ifndef"):
            if _after_a_separator(source, line_start, looked) or _bodies_after_a_head(source, line_start, looked):
                return True
            groups.append([line_end])
            continue
        if not groups:
            continue
        if _unbalanced_text(source, groups[-1][-1], match.start()):
            return True
        if keyword == b"endif":
            groups.pop()
        else:
            groups[-1].append(line_end)
    return False


def _bodies_after_a_head(source: bytes, line_start: int, looked: dict[int, int]) -> bool:
    """Whether the directive line at `line_start` follows a `)` and a `{` follows it: a function's head with
    a body per configuration (`int f(void)` `#ifdef X` `{ ... }` `#else` `{ ... }` `#endif`)."""
    at = _code_before(source, line_start, looked)
    if at < 0 or source[at] != ord(")"):
        return False
    line_end = source.find(b"\n", line_start)
    return line_end != -1 and source[line_end:].lstrip(_BLANK)[:1] == b"{"


def _unbalanced_text(source: bytes, start: int, end: int) -> bool:
    for opening, closing in ((b"{", b"}"), (b"(", b")"), (b"[", b"]")):
        if source.count(opening, start, end) != source.count(closing, start, end):
            return True
        closes = source.find(closing, start, end)
        if closes != -1 and closes < source.find(opening, start, end):
            return True
    return False


def _after_a_separator(source: bytes, line_start: int, looked: dict[int, int]) -> bool:
    """Whether the code before the directive line at `line_start` ends where an expression goes on."""
    at = _code_before(source, line_start, looked)
    if at == _IN_A_COMMENT:
        return True
    if at < 0:
        return False
    last = source[at : at + 1]
    if last in (b",", b"(", b"[", b"=", b"/", b"\\"):
        return True
    if last == b"{":
        before = at - 1
        while before >= 0 and source[before] in _BLANK:
            before -= 1
        return before >= 0 and source[before : before + 1] in (b"=", b",", b"{")
    return False


_IN_A_COMMENT = -2  # `_code_before`: a comment's end with no start before it


def _code_before(source: bytes, line_start: int, looked: dict[int, int]) -> int:
    """The last byte of code before the directive line at `line_start`, past blanks, comments and other
    directive lines (-1: none). `looked` keeps the answer for each directive line passed: the lines of a
    run of directives (a generated header has thousands) are looked past once, not once per group."""
    at = line_start - 1
    passed = [line_start]
    while True:
        while at >= 0 and source[at] in _BLANK:
            at -= 1
        if at < 0:
            break
        start = source.rfind(b"\n", 0, at) + 1
        if source[start:at].lstrip(b" \t").startswith(b"#"):  # another directive: look before it
            if start in looked:
                at = looked[start]
                break
            passed.append(start)
            at = start - 1
            continue
        if source[at - 1 : at + 1] == b"*/":  # a comment: look before it
            opened = source.rfind(b"/*", 0, at - 1)
            if opened == -1:
                at = _IN_A_COMMENT
                break
            at = opened - 1
            continue
        comment = source.find(b"//", start, at)
        if comment != -1 and b'"' not in source[start:comment]:
            at = comment - 1
            continue
        break
    for start in passed:
        looked[start] = at
    return at


def blanked(source: bytes, ranges: list[tuple[int, int]], deadline: float | None = None) -> bytes:
    """`source` with each range replaced by spaces, its line breaks kept (past `deadline`, ParseTimeout)."""
    if not ranges:
        return source
    out = bytearray(source)
    for start, end in paced(ranges, deadline):
        out[start:end] = re.sub(rb"[^\n]", b" ", source[start:end])
    return bytes(out)


def _scan(source: bytes, deadline: float | None) -> list[int | _Group]:
    """The file's brackets and conditional groups, nested; each branch's depths computed."""
    top: list[int | _Group] = []
    open_groups: list[_Group] = []

    def items() -> list[int | _Group]:
        return open_groups[-1].branches[-1].items if open_groups else top

    for match in paced(_TOKENS.finditer(source), deadline):
        directive = match.group("directive")
        if directive is None:
            if source[match.start()] in b"{}()[]":
                items().append(match.start())
            continue
        line = (match.start(), match.end("directive"), match.end())
        if directive in (b"if", b"ifdef", b"ifndef"):
            rest = match.group("rest")
            false = bool(_ALWAYS_FALSE.match(rest)) and (directive != b"ifndef")
            if directive == b"ifdef" and rest.split()[:1] != [b"__cplusplus"]:
                false = False
            group = _Group([_Branch(line)], false)
            items().append(group)
            open_groups.append(group)
        elif not open_groups:
            continue  # an `#else` or `#endif` with no `#if` in this file: nothing to pair it with
        elif directive == b"endif":
            group = open_groups.pop()
            group.branches[-1].end = match.start()
            group.endif = (match.start(), match.end())
            for branch in group.branches:
                _measure(source, branch)
        else:
            group = open_groups[-1]
            group.branches[-1].end = match.start()
            group.branches.append(_Branch(line))
    return top


def _measure(source: bytes, branch: _Branch) -> None:
    """A branch's lowest and final depth: its brackets, and each nested group's kept branch."""
    braces = parens = 0
    low_braces = low_parens = 0
    for item in branch.items:
        if isinstance(item, int):
            byte = source[item]
            if byte in _OPENING:
                braces, parens = (braces + 1, parens) if _OPENING[byte] == 0 else (braces, parens + 1)
            else:
                braces, parens = (braces - 1, parens) if _CLOSING[byte] == 0 else (braces, parens - 1)
        else:
            kept = item.kept
            if kept is None:
                continue
            inner = item.branches[kept]
            low_braces, low_parens = min(low_braces, braces + inner.low[0]), min(low_parens, parens + inner.low[1])
            braces, parens = braces + inner.net[0], parens + inner.net[1]
        low_braces, low_parens = min(low_braces, braces), min(low_parens, parens)
    branch.low, branch.net = (low_braces, low_parens), (braces, parens)


def _walk(
    source: bytes,
    items: list[int | _Group],
    stack: list[str],
    found: Hidden,
    looked: dict[int, int],
    deadline: float | None,
) -> None:
    """Follow the brackets in order (the context of each group), resolving the groups that need it."""
    for item in items:
        if isinstance(item, int):
            _bracket(source, item, stack)
            continue
        overdue(deadline)
        if item.endif is None:  # no `#endif` in the file: leave it to the parser
            for branch in item.branches:
                _walk(source, branch.items, stack, found, looked, deadline)
            continue
        inside = bool(stack) and stack[-1] != "block"
        bodies = not stack and _bodies_after_a_head(source, item.branches[0].head[0], looked)
        if not (inside or bodies or _unbalanced(item)):
            for branch in item.branches:
                _walk(source, branch.items, stack, found, looked, deadline)
            continue
        kept = item.kept
        others: list[tuple[int, int]] = []
        for index, branch in enumerate(item.branches):
            start, keyword_end, line_end = branch.head
            found.blank.append((start, line_end))
            found.words.append((keyword_end, line_end))
            if index == kept:
                _walk(source, branch.items, stack, found, looked, deadline)
            else:
                found.blank.append((line_end, branch.end))
                found.words.append((line_end, branch.end))
                others.append((line_end, branch.end))
        if kept is not None:
            found.alternatives.append(((item.branches[kept].head[2], item.branches[kept].end), others))
        found.blank.append(item.endif)


def _unbalanced(group: _Group) -> bool:
    return any(min(branch.low) < 0 or branch.net != (0, 0) for branch in group.branches)


def _bracket(source: bytes, at: int, stack: list[str]) -> None:
    byte = source[at]
    if byte in b"([":
        stack.append("paren")
    elif byte == ord("{"):
        before = at - 1
        while before >= 0 and source[before] in b" \t\r\n":
            before -= 1
        previous = source[before : before + 1] if before >= 0 else b""
        initializer = previous == b"=" or (previous in (b",", b"{") and bool(stack) and stack[-1] == "init")
        stack.append("init" if initializer else "block")
    elif stack:
        stack.pop()
