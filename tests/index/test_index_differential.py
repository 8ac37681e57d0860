"""Grep and Glob with the index and without it: the same output, totals, order, pages and metadata."""

from __future__ import annotations

import os
import random
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import fstools
from fstools._core.binaries import find_binary
from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS, SensitiveMatcher
from fstools._grep.command import GrepQuery
from fstools._index.build import build
from fstools._index.grams import ANY_FOLLOW
from fstools._index.listing import Filters
from fstools._index.plan import And, Gram, Or, Query, plan
from fstools._index.service import grep_candidates, open_live, set_watching
from fstools._walk.excludes import exclusion_globs
from tests.helpers.indexed import MAX_FILESIZE, comparable, make_tree, mutate, random_query, write


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("indexed") / "proj"
    root.mkdir()
    make_tree(root, seed=1)
    return Path(str(root.resolve()))


def contexts(root: Path) -> tuple[fstools.ExecutionContext, fstools.ExecutionContext]:
    on = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE)
    off = fstools.ExecutionContext(working_dir=str(root), grep_max_filesize=MAX_FILESIZE, search_index="off")
    return on, off


def rg_matching_files(root: Path, args: dict) -> set[str] | None:
    """What Grep's walk finds for `args` (None when rg rejects the pattern)."""
    argv = [find_binary("rg"), "--no-config", "-l", "--crlf", "--max-filesize", str(MAX_FILESIZE)]
    argv += ["--ignore-case"] if args.get("-i") else []
    argv += ["--fixed-strings"] if args.get("fixed_strings") else []
    argv += ["--multiline", "--multiline-dotall"] if args.get("multiline") else []
    for glob in exclusion_globs(SensitiveMatcher(DEFAULT_SENSITIVE_PATTERNS)):
        argv += ["--glob", glob]
    proc = subprocess.run([*argv, "-e", args["pattern"], "--", str(root)], capture_output=True)
    if proc.returncode == 2:
        return None
    return {p for p in proc.stdout.decode("utf-8", "surrogateescape").splitlines()}


def test_the_plan_never_drops_a_matching_file(tree: Path) -> None:
    """1,000 generated patterns: every file rg matches is among the index's candidates."""
    build(str(tree), max_filesize=MAX_FILESIZE)
    filters = Filters.of(DEFAULT_SENSITIVE_PATTERNS, MAX_FILESIZE)
    rng = random.Random(7)
    queries = [random_query(rng) for _ in range(1000)]
    with ThreadPoolExecutor(4) as pool:
        found = list(pool.map(lambda args: rg_matching_files(tree, args), queries))
    narrowed = 0
    for args, matching in zip(queries, found, strict=True):
        if matching is None:
            continue
        search = GrepQuery(
            pattern=args["pattern"],
            root=str(tree),
            root_is_file=False,
            case_insensitive=args["-i"],
            fixed_strings=bool(args.get("fixed_strings")),
        )
        lookup = grep_candidates(search, filters)
        if lookup.status != "used":
            assert lookup.status in ("binary", "unselective"), (args, lookup.status)
            continue
        secrets = {str(tree / ".env"), str(tree / "server.pem")}
        missed = matching - set(lookup.paths) - secrets
        assert not missed, (args, missed)
        narrowed += len(lookup.paths) < 40
    assert narrowed > 300, "the index should narrow most searches"


MODES = [
    {"output_mode": "files_with_matches", "head_limit": 0},
    {"output_mode": "count", "head_limit": 0},
    {"output_mode": "content", "head_limit": 0},
    {"output_mode": "content", "head_limit": 3, "offset": 2, "-C": 1},
    {"output_mode": "files_with_matches", "head_limit": 2, "offset": 1},
]


def test_grep_results_are_identical_with_and_without_the_index(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    on, off = contexts(tree)
    registry = fstools.create_registry()
    rng = random.Random(11)
    used = 0
    for i in range(100):
        args = {**random_query(rng), **MODES[i % len(MODES)]}
        for path in (str(tree), str(tree / "src")):
            with_index = registry.run("Grep", on, path=path, **args)
            without = registry.run("Grep", off, path=path, **args)
            assert comparable(with_index) == comparable(without), args
            used += with_index.metadata.get("index") == "used"
            if with_index.success:
                assert without.metadata["index"] == "off"
    assert used > 100


@pytest.mark.parametrize("watching", [True, False], ids=["inotify", "stat-check"])
def test_results_stay_identical_after_external_changes(tmp_path: Path, watching: bool) -> None:
    """Creates, edits, appends, deletes, renames, symlinks, new dirs, touches just before each call."""
    set_watching(watching)
    root = tmp_path / "proj"
    root.mkdir()
    make_tree(root, seed=3, files=25)
    root = root.resolve()
    build(str(root), max_filesize=MAX_FILESIZE)
    on, off = contexts(root)
    registry = fstools.create_registry()
    rng = random.Random(5)
    statuses = set()
    for i in range(60):
        change = mutate(root, rng)
        args = {**random_query(rng), **MODES[i % len(MODES)]}
        with_index = registry.run("Grep", on, **args)
        without = registry.run("Grep", off, **args)
        assert comparable(with_index) == comparable(without), (change, args)
        statuses.add(with_index.metadata.get("index"))
        globbed = registry.run("Glob", on, pattern=rng.choice(["**/*.c", "**", "src/*", "*.txt"]))
        plain = registry.run("Glob", off, pattern=globbed.metadata["pattern"])
        assert comparable(globbed) == comparable(plain), change
    set_watching(True)
    assert "used" in statuses


def test_glob_results_are_identical_with_and_without_the_index(tree: Path) -> None:
    build(str(tree), max_filesize=MAX_FILESIZE)
    on, off = contexts(tree)
    for pattern in ["**/*.c", "**", "*", "src/**/*.py", "**/f1*", "docs/*.md", "lib/**", "**/*.{c,py}", "nomatch*"]:
        for limit in (1000, 3):
            with_index = fstools.glob(pattern, str(tree), limit=limit, ctx=on)
            without = fstools.glob(pattern, str(tree), limit=limit, ctx=off)
            assert comparable(with_index) == comparable(without), pattern
            assert with_index.metadata["index"] == "used", pattern
            assert without.metadata["index"] == "off"
    for options in ({"case_sensitive": False}, {"exclude": ["src/core"]}, {"exclude": ["*.md"]}):
        for pattern in ["**/*.C", "**/F1*", "**"]:
            with_index = fstools.glob(pattern, str(tree), ctx=on, **options)
            without = fstools.glob(pattern, str(tree), ctx=off, **options)
            assert comparable(with_index) == comparable(without), (pattern, options)
            assert with_index.metadata["index"] == ("options" if options.get("exclude") == ["*.md"] else "used")
    hidden = fstools.glob("**", str(tree), hidden=True, ctx=on)
    assert hidden.metadata["index"] == "options"
    assert comparable(hidden) == comparable(fstools.glob("**", str(tree), hidden=True, ctx=off))


def test_glob_pages_with_tied_mtimes_and_changed_files_match_the_walk(tree: Path) -> None:
    """The index sorts a pattern's matches once (newest first, ties by path) and cuts each page from that:
    with many files of one mtime, and files changed since the build (which come last in its list)."""
    files = sorted(p for p in tree.rglob("*") if p.is_file() and not any(part.startswith(".") for part in p.parts))
    for i, path in enumerate(files):
        os.utime(path, ns=(1_700_000_000 * 10**9, (1_700_000_000 + i % 3) * 10**9))  # three mtimes for all
    build(str(tree), max_filesize=MAX_FILESIZE)
    on, off = contexts(tree)
    for round_ in range(3):
        for path in files[round_::4]:
            os.utime(path, ns=(1_700_000_000 * 10**9, (1_700_000_000 + 1) * 10**9))  # ties, past the build
        write(tree / f"zz{round_}.c", "int z;\n")
        write(tree / "src" / f"a{round_}.c", "int a;\n")
        for pattern in ("**/*.c", "**"):
            for limit in (1, 5, 1000):
                with_index = fstools.glob(pattern, str(tree), limit=limit, ctx=on)
                assert with_index.metadata["index"] == "used"
                assert comparable(with_index) == comparable(fstools.glob(pattern, str(tree), limit=limit, ctx=off))


def _without_follows(query: Query) -> Query:
    """The same query with every trigram checked for presence only."""
    if isinstance(query, Gram):
        return Gram(query.code, ANY_FOLLOW)
    if isinstance(query, (And, Or)):
        return type(query)(tuple(_without_follows(q) for q in query.parts))
    return query


def test_follow_masks_drop_near_misses_and_never_a_match(tmp_path: Path) -> None:
    """Files full of a literal's trigrams in other orders: the follow masks drop many that the
    trigrams keep, and never one that rg matches (checked without the final verifying read)."""
    root = (tmp_path / "near").resolve()
    rng = random.Random(5)
    alphabet = "RESUMP_Ma"
    for i in range(300):
        write(root / f"f{i:03}.txt", "".join(rng.choice(alphabet) for _ in range(rng.randint(20, 400))) + "\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    set_watching(False)
    try:
        live = open_live(str(root))
    finally:
        set_watching(True)
    filters_kept = trigrams_kept = 0
    for _ in range(150):
        literal = "".join(rng.choice(alphabet) for _ in range(rng.randint(4, 9)))
        args = {"pattern": literal, "fixed_strings": True}
        matching = rg_matching_files(root, args)
        assert matching is not None
        query = plan(literal, case_insensitive=False, fixed_strings=True).query
        with live.lock:
            kept = set(live.candidates(query, str(root)))
            by_trigrams = set(live.candidates(_without_follows(query), str(root)))
        assert matching <= kept <= by_trigrams, (literal, matching - kept)
        filters_kept += len(kept)
        trigrams_kept += len(by_trigrams)
    assert filters_kept < 0.8 * trigrams_kept, (filters_kept, trigrams_kept)


def test_every_line_from_a_single_candidate(tmp_path: Path) -> None:
    """rg prints no file heading when it is given one file: the index's lone candidate must still show."""
    root = (tmp_path / "proj").resolve()
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    for i in range(5):
        write(root / f"f{i}.c", f"int other_{i} = {i};\n")
    write(root / "src" / "only.c", "int UNIQUEWORD = 1;\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    on, off = contexts(root)
    with_index = fstools.grep("UNIQUEWORD", output_mode="content", head_limit=0, ctx=on)
    without = fstools.grep("UNIQUEWORD", output_mode="content", head_limit=0, ctx=off)
    assert with_index.metadata["index"] == "used"
    assert with_index.output == without.output == f"{root}/src/only.c:1> int UNIQUEWORD = 1;"


@pytest.mark.parametrize("watching", [True, False], ids=["inotify", "stat-check"])
def test_the_probe_after_an_empty_result_is_answered_from_the_index(
    tmp_path: Path, watching: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A pattern found nowhere Grep looks: the binary, ignored, hidden and oversized files that the
    probe reports come from the index (no walk) while no directory changed, and equal the walk's
    after in-place edits; after a create or delete the probe walks again, with the same answer."""
    from fstools._grep import runs

    set_watching(watching)
    root = (tmp_path / "proj").resolve()
    make_tree(root, seed=4, files=20)
    write(root / ".hidden" / "deep" / "d.txt", "nothing\n")
    write(root / "ignored" / "x.txt", "ZQPROBE in an ignored dir\n")
    write(root / ".hidden" / "h.txt", "ZQPROBE hidden\n")
    write(root / "bin.dat", b"\0\x01foo ZQPROBE bar\n")
    build(str(root), max_filesize=MAX_FILESIZE)
    on, off = contexts(root)
    walks: list[str] = []
    real_probe = runs.Searcher.probe
    monkeypatch.setattr(runs.Searcher, "probe", lambda *a: walks.append("walk") or real_probe(*a))

    def same(pattern: str, expect_walk: bool) -> dict:
        walks.clear()
        with_index = fstools.grep(pattern, ctx=on)
        assert with_index.metadata["index"] == "used"
        assert bool(walks) == expect_walk, (pattern, walks)
        without = fstools.grep(pattern, ctx=off)
        assert comparable(with_index) == comparable(without), pattern
        return with_index.metadata

    try:
        meta = same("ZQPROBE", expect_walk=False)
        assert meta["total_matches"] == 0 and meta["skipped"] and meta["skipped_paths"], meta
        same("NOT_THERE_AT_ALL", expect_walk=False)
        # In place: an ignored file loses the pattern, a hidden one gains it, a text file grows past the limit.
        write(root / "ignored" / "x.txt", "gone\n")
        write(root / ".hidden" / "deep" / "d.txt", "ZQPROBE now\n")
        with open(root / "docs" / "grown.md", "w") as f:
            f.write("ZQPROBE padding\n" * (MAX_FILESIZE // 10 + 5))
        same("ZQPROBE", expect_walk=True)  # grown.md is new: its directory changed
        same("ZQPROBE", expect_walk=True)  # and stays unproven until a rebuild
        build(str(root), max_filesize=MAX_FILESIZE)
        same("ZQPROBE", expect_walk=False)
        with open(root / "docs" / "grown.md", "a") as f:
            f.write("more\n")
        write(root / ".hidden" / "deep" / "d.txt", "nothing again\n")
        same("ZQPROBE", expect_walk=False)
        write(root / ".hidden" / "deep" / "new.txt", "ZQPROBE created\n")  # a hidden directory changed
        same("ZQPROBE", expect_walk=True)
    finally:
        set_watching(True)


@pytest.mark.parametrize("repository", [True, False])
def test_the_index_lists_what_grep_walks_on_tricky_ignores(tmp_path: Path, repository: bool) -> None:
    """Links (to a directory, a file, out of the tree, nowhere), directories named like secrets'
    backups or with glob characters, `.ignore` and `.rgignore` beside nested `.gitignore` files with
    negations and anchors, a nested repository, in a repository and in a plain directory (whose
    `.gitignore` files rg does not read): the index's file set is Grep's walk, and Grep answers alike."""
    from fstools._index.listing import tree_files

    root = tmp_path / "proj"
    if repository:
        subprocess.run(["git", "init", "-q", str(root)], check=True)
        write(root / ".git" / "info" / "exclude", "excluded.txt\n")
    files = ["a.txt", "x.log", "keep.log", "build/o.txt", "src/build/k.txt", "docs/a.md", "docs/README.md"]
    files += ["src/gen/g.txt", "src/gen/keep.txt", "src/t.tmp", "deep/b/anch.txt", "deep/b/c/anch.txt"]
    files += ["id_rsa.bak/f.txt", "x.pem.old/f.txt", "key.pem.swq/f.txt", "a{b}/f.txt", "[x]/f.txt", "*/f.txt"]
    files += ["ig.txt", "rg.txt", "excluded.txt", ".h.txt", ".hd/f.txt", "real/f.txt", "sub/y.txt", "sub/x.gen"]
    for name in files:
        write(root / name, "MARKER\n")
    write(root / ".gitignore", "*.log\n!keep.log\n/build\ndocs/*.md\n!docs/README.md\n")
    write(root / "src" / ".gitignore", "gen/\n!gen/keep.txt\n*.tmp\n")
    write(root / "deep" / "b" / ".gitignore", "/anch.txt\n")
    write(root / ".ignore", "ig.txt\n")
    write(root / ".rgignore", "rg.txt\n")
    subprocess.run(["git", "init", "-q", str(root / "sub")], check=True)
    write(root / "sub" / ".gitignore", "*.gen\n")
    for link, target in [("ldir", "real"), ("lfile.txt", "real/f.txt"), ("out.txt", "/etc/hostname"), ("gone", "x")]:
        os.symlink(target, root / link)
    root = Path(os.path.realpath(root))
    on, off = contexts(root)
    build(str(root), max_filesize=MAX_FILESIZE)
    listed = sorted(tree_files(str(root), Filters.of(DEFAULT_SENSITIVE_PATTERNS, MAX_FILESIZE)))
    answers = {}
    for name, ctx in (("index", on), ("walk", off)):
        result = fstools.grep("MARKER", str(root), head_limit=0, ctx=ctx)
        answers[name] = sorted(hit["path"] for hit in result.metadata["files"])
        assert result.metadata["index"] == ("used" if ctx is on else "off")
    assert listed == answers["index"] == answers["walk"]
    assert {"key.pem.swq/f.txt", "a{b}/f.txt", "[x]/f.txt", "*/f.txt", "sub/y.txt"} <= {
        os.path.relpath(p, root) for p in listed
    }
