"""Reference implementations fstools is measured against.

Raw binaries (rg, fd, cat, sed, ls) get the same limits and excludes as fstools — the
10 MB per-file limit, fstools' default excludes and secret patterns, hidden files and
.gitignore as fstools' defaults — and their output goes to a pipe that is read to the
end, so each side pays for the whole result. The pure-Python references are written
plainly, the way a script would do the job without fstools.
"""

from __future__ import annotations

import fnmatch
import glob as globlib
import os
import re
import subprocess
import tempfile
from collections.abc import Iterator, Sequence

from fstools._core.binaries import find_binary
from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS
from fstools._walk.excludes import DEFAULT_EXCLUDES

MAX_FILESIZE = 10 * 1024 * 1024  # Grep's default per-file limit (ExecutionContext.grep_max_filesize)


def binary(tool: str) -> str:
    """The same rg/fd fstools runs (interpreter scripts dir first, then PATH)."""
    path = find_binary(tool)
    if path is None:
        raise FileNotFoundError(f"{tool} not found: install the ripgrep wheel / the fd-find package")
    return path


def _excluded_names() -> list[str]:
    secrets = [p for p in DEFAULT_SENSITIVE_PATTERNS if not p.startswith("!")]
    return [*DEFAULT_EXCLUDES, *secrets]


def rg_excludes() -> list[str]:
    return [arg for name in _excluded_names() for arg in ("-g", f"!{name}")]


def run(argv: Sequence[str], cwd: str | None = None) -> bytes:
    """Run a command with stdin closed and return its whole stdout (exit 1 = no match is fine)."""
    proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=cwd)
    if proc.returncode not in (0, 1):
        raise RuntimeError(f"{argv[0]} exited {proc.returncode}: {' '.join(argv)}")
    return proc.stdout


def rg_argv(*flags: str, pattern: str, path: str) -> list[str]:
    """`rg FLAGS` with fstools' Grep defaults; the pattern after `-e` so it may start with '-'."""
    return [binary("rg"), *flags, "--max-filesize", "10M", *rg_excludes(), "-e", pattern, path]


def rg_files_argv(path: str, name_glob: str, sortr_modified: bool = True) -> list[str]:
    """`rg --files` of the files named `name_glob`, through a file type: a `-g` glob would be
    an override that skips .gitignore matching for what it matches (faster, and wrong)."""
    sort = ["--sortr", "modified"] if sortr_modified else []
    only = ["--type-add", f"bench:{name_glob}", "--type", "bench"]
    return [binary("rg"), "--files", *sort, *rg_excludes(), *only, path]


def fd_argv(path: str, glob: str) -> list[str]:
    excludes = [arg for name in _excluded_names() for arg in ("-E", name)]
    return [binary("fd"), "--type", "f", "--glob", *excludes, glob, path]


def lines(output: bytes) -> list[str]:
    return output.decode("utf-8", "replace").splitlines()


def glob_sorted(root: str, pattern: str, limit: int | None = None) -> list[str]:
    """`glob.glob` + sort, newest first then path: what a script does without fstools."""
    paths = globlib.glob(os.path.join(root, pattern), recursive=True)
    keyed = []
    for p in paths:
        st = os.stat(p)
        keyed.append((-st.st_mtime_ns, p))
    keyed.sort()
    return [p for _, p in keyed[:limit]]


def newest_first(paths: Sequence[str], limit: int | None = None) -> list[str]:
    """`paths` ordered as Glob orders them: newest mtime first, ties by path ascending."""
    return sorted(paths, key=lambda p: (-os.stat(p).st_mtime_ns, p))[:limit]


def _excluded(name: str, skip: Sequence[str]) -> bool:
    return name.startswith(".") or any(fnmatch.fnmatchcase(name, pat) for pat in skip)


def walk_files(root: str, skip: Sequence[str] = ()) -> Iterator[str]:
    """Files under root a default search sees: no hidden names, no excluded or `skip` names."""
    names = [*_excluded_names(), *skip]
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not _excluded(d, names)]
        for f in filenames:
            if not _excluded(f, names):
                yield os.path.join(dirpath, f)


def python_grep(root: str, pattern: str, skip: Sequence[str] = ()) -> list[str]:
    """os.walk + re, `rg -n`-style output lines: the plain-Python way to grep a tree.

    Like rg it skips files over 10 MB and files with a NUL byte (binary), and matches
    line by line.
    """
    regex = re.compile(pattern)
    out = []
    for path in walk_files(root, skip):
        try:
            if os.path.getsize(path) > MAX_FILESIZE:
                continue
            with open(path, "rb") as f:
                data = f.read()
        except OSError:
            continue
        if b"\0" in data:
            continue
        for n, line in enumerate(data.decode("utf-8", "replace").split("\n"), 1):
            if regex.search(line):
                out.append(f"{path}:{n}:{line}")
    return out


def scandir_sorted(path: str) -> list[tuple[str, int, float]]:
    """One directory's visible entries with size and mtime, directories first: LS by hand."""
    rows = []
    with os.scandir(path) as it:
        for de in it:
            if not _excluded(de.name, DEFAULT_EXCLUDES):
                st = de.stat(follow_symlinks=False)
                rows.append((not de.is_dir(follow_symlinks=False), de.name.lower(), de.name, st.st_size, st.st_mtime))
    rows.sort()
    return [(name, size, mtime) for _, _, name, size, mtime in rows]


def atomic_write(path: str, data: bytes) -> None:
    """Temp file in the same directory, fsync, rename, fsync the directory: Write's guarantees by hand."""
    directory = os.path.dirname(path)
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
    dfd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def replace_in_file(path: str, edits: Sequence[tuple[str, str]]) -> None:
    """Read, replace each unique old string, atomic write: Edit/MultiEdit by hand."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    for old, new in edits:
        if text.count(old) != 1:
            raise ValueError(f"{old!r} is not unique in {path}")
        text = text.replace(old, new)
    atomic_write(path, text.encode("utf-8"))
