"""Test trees: files with chosen mtimes, very deep directories, the tool as an agent calls it, raw rg."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

import fstools
from fstools._change.tree import remove_tree
from fstools._core.binaries import find_binary

BASE_MTIME = 1_700_000_000


def write(path: Path, text: str | bytes, *, age: int | None = None) -> Path:
    """Create a file (and its parents); `age` seconds before BASE_MTIME fixes its mtime."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    if age is not None:
        os.utime(path, (BASE_MTIME - age, BASE_MTIME - age))
    return path


def git(*args: str, cwd: Path | str) -> str:
    """Run git in `cwd`; its output (CalledProcessError when it fails)."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


def linked_worktree(main: Path, tree: Path, name: str = "f", text: str = "x") -> None:
    """A repository at `main` with one commit (the file `name` holding `text`) and `tree` a linked worktree of it."""
    write(main / name, text)
    git("init", "-q", cwd=main)
    git("add", name, cwd=main)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "init", cwd=main)
    git("worktree", "add", "-q", str(tree), cwd=main)


def run_tool(ctx: fstools.ExecutionContext, **args) -> fstools.ToolResult:
    """Call Grep the way an agent does: through the registry, with the tool-layer parameter names (-i, -n, -A, ...)."""
    return fstools.create_registry().run("Grep", ctx, **args)


def raw_rg(*args: str) -> bytes:
    """Raw rg output, for differential tests (no config file, stdin closed)."""
    rg = find_binary("rg")
    assert rg is not None
    proc = subprocess.run([rg, "--no-config", *args], stdin=subprocess.DEVNULL, capture_output=True)
    assert proc.returncode in (0, 1), proc.stderr
    return proc.stdout


def deep_tree(top: Path | str, depth: int) -> None:
    """`top/d/d/…/f.txt`, `depth` levels, built with directory handles (the path grows past what tools print)."""
    os.mkdir(top)
    fd = os.open(top, os.O_RDONLY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            child = os.open("d", os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = child
        os.close(os.open("f.txt", os.O_WRONLY | os.O_CREAT, dir_fd=fd))
    finally:
        os.close(fd)


@contextmanager
def other_filesystem(near: Path) -> Iterator[Path]:
    """A fresh directory on a filesystem other than `near`'s (/dev/shm), removed afterwards; the
    test is skipped where there is none."""
    shm = Path("/dev/shm")
    if not shm.is_dir() or not os.access(shm, os.W_OK) or shm.stat().st_dev == near.stat().st_dev:
        pytest.skip("no second writable filesystem (/dev/shm) here")
    root = Path(tempfile.mkdtemp(dir=shm))
    try:
        yield root
    finally:  # without recursion: a test may leave a very deep tree there
        fd = os.open(shm, os.O_RDONLY | os.O_DIRECTORY)
        try:
            remove_tree(fd, root.name)
        finally:
            os.close(fd)


@contextmanager
def tmpfs_mount(directory: Path, size: str = "64m") -> Iterator[Path]:
    """A tmpfs of `size` mounted on `directory` (created), unmounted afterwards; the test is skipped,
    saying why, where this process may not mount one (not root, no mount command, a container
    without CAP_SYS_ADMIN)."""
    directory.mkdir(parents=True, exist_ok=True)
    mount, umount = shutil.which("mount"), shutil.which("umount")
    if mount is None or umount is None:
        pytest.skip("no mount command here to mount a tmpfs")
    done = subprocess.run(
        [mount, "-t", "tmpfs", "-o", f"size={size},mode=0700", "tmpfs", str(directory)],
        capture_output=True,
        text=True,
        timeout=30,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.strip() or done.returncode}")
    try:
        yield directory
    finally:
        subprocess.run([umount, "-l", str(directory)], capture_output=True, timeout=30)
