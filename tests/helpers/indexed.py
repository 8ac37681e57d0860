"""Generated trees, patterns and external changes for the search index's differential tests."""

from __future__ import annotations

import os
import random
import subprocess
from pathlib import Path
from typing import Any

import fstools

WORDS = [
    "alpha",
    "Beta",
    "GAMMA",
    "delta_x",
    "PM_RESUME",
    "pm_resume",
    "Pm_Resume",
    "foo",
    "bar",
    "baz",
    "foobar",
    "Kelvin",
    "KELVIN",
    "kelvin",
    "\u212aelvin",
    "straße",
    "STRASSE",
    "naïve",
    "NAÏVE",
    "日本語",
    "ſecret",
    "secret",
    "x1",
    "y22",
    "a.b",
    "a+b",
    "(paren)",
    "[br]",
    "{c}",
    "end$",
    "^start",
    "back\\slash",
    "path/to",
    "é",
    "É",
    "void",
    "int",
    "return",
    "ERR_SYS",
    "LINK_REQ_RST",
    "0x1F",
    "42",
    "TODO",
    "todo",
    "résumé",
    "über",
]
SECRET = "PLANTEDSECRETzq8Xv"
MAX_FILESIZE = 4096


def _line(rng: random.Random) -> str:
    seps = [" ", " ", "_", "-", "", ", ", "\t", "::"]
    return "".join(rng.choice(WORDS) + rng.choice(seps) for _ in range(rng.randint(0, 8))).rstrip()


def text(rng: random.Random, lines: int | None = None) -> str:
    n = rng.randint(1, 12) if lines is None else lines
    ending = "\r\n" if rng.random() < 0.15 else "\n"
    return ending.join(_line(rng) for _ in range(n)) + (ending if rng.random() < 0.9 else "")


def make_tree(root: Path, seed: int = 0, files: int = 40) -> None:
    """A git work tree of text files plus every kind of file the index treats specially."""
    rng = random.Random(seed)
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    dirs = ["", "src", "src/core", "docs", "lib/deep/er", "tests"]
    for i in range(files):
        write(root / rng.choice(dirs) / f"f{i}.{rng.choice(['c', 'py', 'txt', 'md'])}", text(rng))
    write(root / ".gitignore", "ignored/\n*.log\n")
    write(root / "ignored" / "x.txt", "PM_RESUME in an ignored dir\n")
    write(root / "run.log", "PM_RESUME in a log\n")
    write(root / ".hidden" / "h.txt", "PM_RESUME hidden\n")
    write(root / ".h.txt", "foo hidden file\n")
    write(root / ".env", f"TOKEN={SECRET}\n")
    write(root / "server.pem", f"-----BEGIN {SECRET}-----\n")
    write(root / "bin.dat", b"\0\x01foo PM_RESUME bar\n")
    write(root / "late.bin", ("alpha beta\n" * 900).encode() + b"\0tail PM_RESUME\n")
    write(root / "utf16.txt", "\ufeffPM_RESUME in utf-16\nfoo bar\n".encode("utf-16-le"))
    write(root / "big.txt", "foo PM_RESUME\n" * (MAX_FILESIZE // 14 + 10))
    write(root / "node_modules" / "m.js", "PM_RESUME in node_modules\n")


def write(path: Path, data: str | bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(data, bytes):
        path.write_bytes(data)
    else:
        path.write_bytes(data.encode())


def _literal(rng: random.Random) -> str:
    word = rng.choice(WORDS)
    if rng.random() < 0.5:
        start = rng.randrange(len(word))
        word = word[start : start + rng.randint(1, 6)]
    return "".join("\\" + c if c in ".+*?()|[]{}^$\\" else c for c in word)


def _atom(rng: random.Random, depth: int) -> str:
    r = rng.random()
    if r < 0.45 or depth > 2:
        return _literal(rng)
    if r < 0.6:
        return rng.choice(
            [".", r"\w", r"\d", r"\s", "[a-z]", "[A-Z]", "[^x]", "[[:alpha:]]", r"\p{L}", "[abc]", "[_-]", "[éÉ]"]
        )
    if r < 0.8:
        return "(" + "|".join(_concat(rng, depth + 1) for _ in range(rng.randint(2, 3))) + ")"
    if r < 0.9:
        return "(?:" + _concat(rng, depth + 1) + ")"
    return rng.choice(["^", "$", r"\b", r"\B"])


def _concat(rng: random.Random, depth: int = 0) -> str:
    parts = []
    for _ in range(rng.randint(1, 4)):
        atom = _atom(rng, depth)
        if rng.random() < 0.25 and atom not in ("^", "$", r"\b", r"\B"):
            atom = f"(?:{atom})" + rng.choice(["*", "+", "?", "{2}", "{1,3}", "{0,2}", "*?", "+?"])
        parts.append(atom)
    return "".join(parts)


def random_query(rng: random.Random) -> dict[str, Any]:
    """Grep arguments: a pattern (regex, inline flags, or fixed string) and matching switches."""
    args: dict[str, Any] = {"-i": rng.random() < 0.3}
    r = rng.random()
    if r < 0.15:
        args["fixed_strings"] = True
        args["pattern"] = rng.choice(WORDS)[: rng.randint(1, 9)] + rng.choice(["", ".", "(", "*", " foo"])
    else:
        pattern = _concat(rng)
        if r < 0.2:
            pattern = "(?i)" + pattern
        if r > 0.92:
            args["multiline"] = True
            pattern += rng.choice([r"\n", r"\s+", r"\n\w"]) + _literal(rng)
        args["pattern"] = pattern
    return args


def mutate(root: Path, rng: random.Random) -> str:
    """One external change of the tree, made just before a call; returns what it was."""
    files = [p for p in root.rglob("*") if p.is_file() and ".git" not in p.parts and not p.is_symlink()]
    target = rng.choice(files)
    kind = rng.choice(["create", "edit", "append", "delete", "rename", "symlink", "mkdir", "touch", "binary"])
    if kind == "create":
        write(root / rng.choice(["", "src", "docs", "newdir"]) / f"n{rng.randrange(10**6)}.c", text(rng))
    elif kind == "edit":
        write(target, text(rng))
    elif kind == "append":
        with open(target, "a") as f:
            f.write(text(rng))
    elif kind == "delete":
        target.unlink()
    elif kind == "rename":
        os.rename(target, target.with_name(f"r{rng.randrange(10**6)}_{target.name}"))
    elif kind == "symlink":
        link = root / "src" / f"link{rng.randrange(10**6)}.c"
        link.parent.mkdir(exist_ok=True)
        link.symlink_to(target)
    elif kind == "mkdir":
        write(root / f"d{rng.randrange(10**6)}" / "sub" / "new.txt", text(rng))
    elif kind == "touch":
        os.utime(target, (1_600_000_000 + rng.randrange(10**6),) * 2)
    else:
        write(target, b"\0" + text(rng).encode())
    return f"{kind} {target.relative_to(root)}"


def comparable(result: fstools.ToolResult) -> tuple[Any, ...]:
    """Everything a caller sees except the index's own status."""
    meta = {k: v for k, v in result.metadata.items() if k not in ("index", "backend")}
    return (result.success, result.output, result.error, result.error_code, meta)
