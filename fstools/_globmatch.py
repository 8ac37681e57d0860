"""Glob patterns (`**`, `*`, `?`, `[abc]`, `[!abc]`, `{a,b}`) compiled to regular expressions.

Used wherever fstools matches paths itself (permission rules, LS ignores, sensitive
files) so every layer agrees on one glob dialect, the one fd and rg use.
"""

from __future__ import annotations

import re
from functools import lru_cache


def _translate(pattern: str) -> str:
    out: list[str] = []
    i, n = 0, len(pattern)
    depth = 0  # nesting of {a,b} alternations
    while i < n:
        c = pattern[i]
        if c == "*":
            if pattern.startswith("**", i):
                at_start = i == 0 or pattern[i - 1] == "/"
                j = i + 2
                if at_start and (j == n or pattern[j] == "/"):
                    if j == n:
                        out.append(".*")
                        i = j
                    else:
                        out.append("(?:.*/)?")
                        i = j + 1
                    continue
                out.append("[^/]*")
                i = j
                continue
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "^") else i + 1)
            if j == -1:
                out.append(re.escape(c))
            else:
                body = pattern[i + 1 : j]
                negate = body[:1] in ("!", "^")
                if negate:
                    body = body[1:]
                body = body.replace("\\", "\\\\")
                out.append(f"[{'^/' if negate else ''}{body}]")
                i = j
        elif c == "{":
            depth += 1
            out.append("(?:")
        elif c == "}" and depth:
            depth -= 1
            out.append(")")
        elif c == "," and depth:
            out.append("|")
        elif c == "\\" and i + 1 < n:
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


@lru_cache(maxsize=512)
def compile_glob(pattern: str, ignore_case: bool = False) -> re.Pattern[str]:
    """Compile a glob matching a whole `/`-separated path (or a bare name)."""
    return re.compile(rf"(?s:{_translate(pattern)})\Z", re.IGNORECASE if ignore_case else 0)


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
