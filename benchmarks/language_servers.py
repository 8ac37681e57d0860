"""What the language servers cost: an Edit's overhead over the server's own analysis, each server's
resident memory, and the first Edit of a cold process.

    python3 -m benchmarks.language_servers                 # every installed server, 20 edits each
    python3 -m benchmarks.language_servers --edits 50 --lib /usr/lib/python3.11

* overhead: the same one-line Edit of a module of the typical project, warm server, with the
  semantic check and without (`language_servers="off"`); overhead = (with - without) -
  `metadata["semantic_check"]["server_ms"]` (from sending the change to its diagnostics:
  the server's own time). Budget: ≤ 50 ms (median).
* memory: the resident memory of the server's whole process group (watchdog, server and its
  children) with one file of the tree open and analysed: the typical project and CPython's
  Lib (the running interpreter's, or --lib).
* cold: a new process's first Edit, from the call to its result; it must not wait longer than
  `lsp_timeout` (3 s) for the server, whatever the server's own start takes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import textwrap
import time

import fstools
from fstools._lsp.languages import AUTO, command_for, server_name
from fstools._lsp.pool import POOL

from .corpus import typical

SAMPLES = {
    "python": ("mod.py", "def f(x: int) -> int:\n    return x + 1\n\n\nVALUE = f(1)\n", "return x + 1"),
    "typescript": ("mod.ts", "export function f(x: number): number {\n  return x + 1;\n}\n", "return x + 1;"),
    "c": ("mod.c", "int f(int x) {\n  return x + 1;\n}\n", "return x + 1;"),
}


def group_rss_kib(pgid: int) -> int:
    """The resident memory of every process of group `pgid`, in KiB (from /proc)."""
    total = 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if int(fields[2]) != pgid:
                continue
            with open(f"/proc/{entry}/status") as f:
                total += next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))
        except (OSError, StopIteration, ValueError):
            continue
    return total


def _project(language: str, base: str) -> str:
    """A copy of the typical project's app (Python) or a small project of the language."""
    root = tempfile.mkdtemp(prefix=f"fstools-lsp-{language}-", dir=base)
    if language == "python":
        shutil.copytree(typical().app, os.path.join(root, "app"))
    name, text, _ = SAMPLES[language]
    with open(os.path.join(root, name), "w") as f:
        f.write(text)
    return root


def overhead(language: str, edits: int, base: str) -> dict[str, float]:
    """Median Edit time with and without the semantic check, the server's time, and the overhead (ms)."""
    root = _project(language, base)
    name, text, line = SAMPLES[language]
    path = os.path.join(root, name)  # edited with the check
    twin = os.path.join(root, "twin" + os.path.splitext(name)[1])  # the same edits without it
    with open(twin, "w") as f:
        f.write(text)
    on = fstools.ExecutionContext(working_dir=root, language_servers="auto", lsp_timeout=60)
    off = fstools.ExecutionContext(working_dir=root)
    fstools.read(path, ctx=on)
    fstools.read(twin, ctx=off)
    warm = fstools.edit(path, line, line + " ", ctx=on)  # starts the server, waits for it
    assert warm.metadata["semantic_check"]["state"] == "done", warm.metadata["semantic_check"]
    fstools.edit(twin, line, line + " ", ctx=off)
    current = line + " "
    with_check, without, server = [], [], []
    for n in range(edits):
        new = line + " " * (2 + n % 5)
        for ctx, file, times in ((on, path, with_check), (off, twin, without)):
            started = time.perf_counter()
            result = fstools.edit(file, current, new, ctx=ctx)
            times.append((time.perf_counter() - started) * 1000)
            if ctx is on:
                check = result.metadata["semantic_check"]
                assert check["state"] == "done" and check["errors"] == 0, check
                server.append(check["server_ms"])
        current = new
    pair = [w - o - s for w, o, s in zip(with_check, without, server, strict=True)]
    return {
        "with": statistics.median(with_check),
        "without": statistics.median(without),
        "server": statistics.median(server),
        "overhead": statistics.median(pair),
    }


def memory(language: str, tree: str, opened: int) -> int:
    """KiB resident for the server of `tree` with `opened` of its files of the language open and analysed."""
    suffixes = {"python": (".py",), "typescript": (".ts", ".js"), "c": (".c",)}[language]
    files = []
    for directory, dirs, names in os.walk(tree):
        dirs[:] = sorted(d for d in dirs if d not in ("node_modules", ".git", "__pycache__", "site-packages"))
        files += [os.path.join(directory, n) for n in sorted(names) if n.endswith(suffixes)]
        if len(files) >= opened:
            break
    if not files:
        return 0
    ctx = fstools.ExecutionContext(working_dir=tree, language_servers="auto", lsp_timeout=120)
    from fstools._lsp import semantic

    for path in files[:opened]:
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        request = semantic.plan(ctx, path, None, text)
        assert request is not None
        semantic.check([request])
    server = next(s for s in POOL.running() if s.root == os.path.realpath(tree) and s.language == language)
    assert server.pid is not None
    time.sleep(1.0)
    return group_rss_kib(server.pid)


def cold(language: str, base: str) -> tuple[float, float, str]:
    """A new process's first Edit (lsp_timeout 3 s): seconds from the call to its result, seconds of
    it spent on the semantic check, and the check's state."""
    root = _project(language, base)
    name, _, line = SAMPLES[language]
    script = textwrap.dedent(
        f"""
        import time, fstools
        ctx = fstools.ExecutionContext(working_dir={root!r}, language_servers="auto")
        fstools.read({os.path.join(root, name)!r}, ctx=ctx)
        started = time.perf_counter()
        result = fstools.edit({os.path.join(root, name)!r}, {line!r}, {line + " "!r}, ctx=ctx)
        check = result.metadata["semantic_check"]
        print(time.perf_counter() - started, check["total_ms"] / 1000, check["state"])
        """
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120)
    seconds, waited, state = out.stdout.split()
    return float(seconds), float(waited), state


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--edits", type=int, default=20)
    parser.add_argument("--lib", default=sysconfig.get_paths()["stdlib"])
    args = parser.parse_args(argv)
    base = tempfile.mkdtemp(prefix="fstools-lsp-bench-")
    failed = False
    try:
        for language in ("python", "typescript", "c"):
            argv_ = command_for(AUTO[language])
            if argv_ is None:
                print(f"{language}: no server installed, skipped")
                continue
            name = server_name(argv_)
            o = overhead(language, args.edits, base)
            print(
                f"{name}: edit {o['without']:.1f} ms without, {o['with']:.1f} ms with the check; server "
                f"{o['server']:.1f} ms; overhead {o['overhead']:.1f} ms (budget 50)"
            )
            failed |= o["overhead"] > 50
            trees = {"typical project": typical().root}
            if language == "python":
                trees["CPython's Lib"] = args.lib
            for label, tree in trees.items():
                for opened in (1, 10):
                    kib = memory(language, tree, opened)
                    print(f"{name}: {label}, {opened} file(s) open: {kib / 1024:.0f} MiB resident")
                POOL.reset()
            seconds, waited, state = cold(language, base)
            print(f"{name}: a cold process's first Edit took {seconds:.2f} s, {waited:.2f} s of it the check ({state})")
            failed |= waited > 3.0 + 0.1
            POOL.reset()
    finally:
        POOL.reset()
        shutil.rmtree(base, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
