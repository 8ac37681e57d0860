"""The benchmark corpora: a typical project, the Linux kernel tree, and big single files.

The typical project is what the budgets call "a typical project (≤ 5,000 files)": a
generated application of a few thousand source files next to a copy of the running
interpreter's standard library, in a git repository with a .gitignore, plus an ignored
build/ and node_modules/ that the tools must not descend into. It is built once per
interpreter (deterministic content and mtimes, so newest-first orders are stable) and
reused; big files are generated on demand and removed by whoever asked for them.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sysconfig
import tempfile
from dataclasses import dataclass

ROOT = os.environ.get("FSTOOLS_BENCH_DIR", os.path.join(tempfile.gettempdir(), "fstools-bench"))
KERNEL_DIR = os.environ.get("FSTOOLS_KERNEL_TREE", "/work/corpus/linux")
KERNEL_MARKER = os.path.join(".git", "fstools-corpus-prepared")  # written by scripts/fetch_corpus

TYPICAL_VERSION = "1"
APP_PACKAGES = 24
MODULES_PER_PACKAGE = 60
DOCS = 300
SCRIPTS = 300
IGNORED_FILES = 60  # in each of build/ and node_modules/
MAX_VISIBLE_FILES = 5000
BASE_MTIME = 1_700_000_000  # generated files get distinct mtimes below this, one second apart

WORDS = (
    "account batch cache client config context cursor document engine event filter handler index "
    "item job layout manager message model node order parser payload policy queue record request "
    "response result schema session signal source store stream task token user value view worker"
).split()


@dataclass(frozen=True)
class Typical:
    root: str
    stdlib: str  # the copy of the standard library
    app: str  # the generated application
    scratch: str  # where mutating benchmarks create their files
    big_module: str  # a 5,000-line generated module for window reads

    @property
    def gitignored(self) -> tuple[str, ...]:
        """Directory names the project's .gitignore hides (besides fstools' default excludes)."""
        return ("build",)


def _module(rng: random.Random, index: int, lines: int) -> str:
    """Plausible Python: imports, a class with methods, functions, TODOs, docstrings."""
    noun = rng.choice(WORDS)
    out = [
        f'"""The {noun} service, part {index}."""',
        "",
        "from __future__ import annotations",
        "",
        "import logging",
        "import os",
        "from dataclasses import dataclass",
        "",
        "log = logging.getLogger(__name__)",
        f"MAX_{noun.upper()}_SIZE = {rng.randint(10, 10_000)}",
        "",
    ]
    n = 0
    while len(out) < lines:
        n += 1
        kind = rng.random()
        name = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{n}"
        if kind < 0.25:
            cls = "".join(w.capitalize() for w in name.split("_")[:2]) + str(n)
            base = "Exception" if rng.random() < 0.2 else "object"
            out += [
                "",
                "@dataclass" if base == "object" else "",
                f"class {cls}{'Error' if base == 'Exception' else ''}({base}):",
                f'    """Holds one {noun} {rng.choice(WORDS)}."""',
                "",
                f"    {rng.choice(WORDS)}: int = {rng.randint(0, 99)}",
                "",
                f"    def {name}(self, {rng.choice(WORDS)}: str) -> str:",
                f"        # TODO: validate the {rng.choice(WORDS)} before use",
                f'        return f"{{self!r}}:{n}"',
            ]
        else:
            arg = rng.choice(WORDS)
            out += [
                "",
                f"def {name}({arg}, limit: int = {rng.randint(1, 500)}) -> list[str]:",
                f'    """Return the {rng.choice(WORDS)}s of `{arg}`, at most `limit`."""',
                f"    found = [str(x) for x in range(limit) if x % {rng.randint(2, 9)} == 0]",
                f"    if not {arg}:",
                f'        log.warning("empty {arg} in %s", os.getcwd())',
                "        return []",
                f"    return found[: len({arg})]",
            ]
    return "\n".join(out[:lines]) + "\n"


def _doc(rng: random.Random, index: int) -> str:
    topic = rng.choice(WORDS)
    paras = [
        " ".join(rng.choice(WORDS) for _ in range(rng.randint(30, 90))).capitalize() + "."
        for _ in range(rng.randint(3, 12))
    ]
    return f"# {topic.capitalize()} guide {index}\n\n" + "\n\n".join(paras) + "\n"


def _script(rng: random.Random, index: int) -> str:
    fn = f"{rng.choice(WORDS)}{index}"
    body = "\n".join(
        f"  const {rng.choice(WORDS)}{i} = await fetch(`/api/{rng.choice(WORDS)}/${{id}}`);"
        for i in range(rng.randint(5, 60))
    )
    return f"export async function {fn}(id) {{\n{body}\n  return null;\n}}\n"


def _write(path: str, text: str, mtime: int) -> None:
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    os.utime(path, (mtime, mtime))


def _generate_app(app: str) -> None:
    rng = random.Random(7)
    files: list[tuple[str, str]] = []
    for p in range(APP_PACKAGES):
        pkg = os.path.join(app, "src", f"{rng.choice(WORDS)}_{p}")
        files.append((os.path.join(pkg, "__init__.py"), f'"""Package {p}."""\n'))
        for m in range(MODULES_PER_PACKAGE):
            files.append((os.path.join(pkg, f"{rng.choice(WORDS)}_{m}.py"), _module(rng, m, rng.randint(40, 700))))
    files.append((os.path.join(app, "src", "big_module.py"), _module(rng, 0, 5000)))
    files += [(os.path.join(app, "docs", f"guide_{i}.md"), _doc(rng, i)) for i in range(DOCS)]
    files += [(os.path.join(app, "web", f"view_{i}.js"), _script(rng, i)) for i in range(SCRIPTS)]
    for ignored in ("build", "node_modules"):
        files += [(os.path.join(app, ignored, f"gen_{i}.py"), _module(rng, i, 50)) for i in range(IGNORED_FILES)]
    for i, (path, text) in enumerate(files):
        _write(path, text, BASE_MTIME - i)


def _copy_stdlib(dest: str) -> None:
    shutil.copytree(
        sysconfig.get_paths()["stdlib"],
        dest,
        symlinks=True,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
    )


def visible_files(root: str, skip_dirs: tuple[str, ...]) -> list[str]:
    """Every file a default Glob should see: no hidden names, no `skip_dirs` (by name)."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in skip_dirs]
        found += [os.path.join(dirpath, f) for f in filenames if not f.startswith(".")]
    return found


def _build_typical(root: str) -> None:
    parent = os.path.dirname(root)
    os.makedirs(parent, exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".typical-", dir=parent)
    try:
        _copy_stdlib(os.path.join(staging, "stdlib"))
        _generate_app(os.path.join(staging, "app"))
        with open(os.path.join(staging, ".gitignore"), "w", encoding="utf-8") as f:
            f.write("build/\n*.log\n")
        subprocess.run(["git", "init", "-q", staging], check=True)
        count = len(visible_files(staging, ("build", "node_modules")))
        if count > MAX_VISIBLE_FILES:
            raise RuntimeError(f"typical project has {count} files, more than {MAX_VISIBLE_FILES}")
        with open(os.path.join(staging, ".git", "fstools-bench"), "w", encoding="utf-8") as f:
            f.write(_stamp())
        shutil.rmtree(root, ignore_errors=True)
        os.rename(staging, root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _stamp() -> str:
    return f"{TYPICAL_VERSION} {sysconfig.get_paths()['stdlib']}\n"


def typical(root: str | None = None) -> Typical:
    """The typical project, built on first use (a few seconds) and reused while current."""
    root = root or os.path.join(ROOT, "typical")
    try:
        with open(os.path.join(root, ".git", "fstools-bench"), encoding="utf-8") as f:
            current = f.read() == _stamp()
    except OSError:
        current = False
    if not current:
        _build_typical(root)
    scratch = os.path.join(root, "scratch")
    os.makedirs(scratch, exist_ok=True)
    app = os.path.join(root, "app")
    return Typical(root, os.path.join(root, "stdlib"), app, scratch, os.path.join(app, "src", "big_module.py"))


def kernel_missing() -> str | None:
    """Why the kernel corpus cannot be used, naming the fix; None when it is prepared."""
    if os.path.exists(os.path.join(KERNEL_DIR, KERNEL_MARKER)):
        return None
    return (
        f"no prepared kernel tree at {KERNEL_DIR}: run `python scripts/fetch_corpus` "
        "(or set FSTOOLS_KERNEL_TREE to a tree it prepared)"
    )


def kernel() -> str:
    missing = kernel_missing()
    if missing:
        raise FileNotFoundError(missing)
    return KERNEL_DIR


def numbered_line(n: int, width: int) -> bytes:
    """Line n of a generated big file: fixed width, so line k starts at byte (k-1)*width."""
    head = f"{n:>10} "
    return (head + "x" * (width - len(head) - 1) + "\n").encode()


def big_text_file(path: str, size: int, width: int = 100) -> int:
    """Write a file of `size` bytes of numbered fixed-width lines; returns the line count."""
    lines = size // width
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if os.path.exists(path) and os.path.getsize(path) == lines * width:
        return lines
    chunk = 100_000
    with open(path + ".tmp", "wb") as f:
        for start in range(1, lines + 1, chunk):
            f.write(b"".join(numbered_line(n, width) for n in range(start, min(start + chunk, lines + 1))))
    os.replace(path + ".tmp", path)
    return lines


def files_dir() -> str:
    """Where big generated files go (never the repository); remove_files() cleans it."""
    path = os.path.join(ROOT, "files")
    os.makedirs(path, exist_ok=True)
    return path


_SCRATCH: list[str] = []


def scratch_dir(parent: str | None = None) -> str:
    """A new empty directory (in `parent`, else beside the big files) that remove_files() removes."""
    parent = parent or ROOT
    os.makedirs(parent, exist_ok=True)
    path = tempfile.mkdtemp(prefix="fstools-bench-", dir=parent)
    _SCRATCH.append(path)
    return path


def remove_files() -> None:
    shutil.rmtree(os.path.join(ROOT, "files"), ignore_errors=True)
    while _SCRATCH:
        shutil.rmtree(_SCRATCH.pop(), ignore_errors=True)
