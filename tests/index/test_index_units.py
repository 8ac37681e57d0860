"""Posting lists, trigram kinds, the build worker's protocol and the index command, in process."""

from __future__ import annotations

import io
import pickle
import random
import subprocess
import sys
from argparse import Namespace
from pathlib import Path

import numpy as np
import pytest

import fstools
from fstools._agents.index_cli import run_index
from fstools._index.build import read_segment
from fstools._index.grams import (
    BINARY,
    LATE_NUL,
    TEXT,
    TRANSCODED,
    follow_bit,
    gram_of,
    kind_of,
    trigrams,
    trigrams_and_follows,
)
from fstools._index.postings import SEGMENT_FILES, build_segment


def test_posting_lists_round_trip_both_formats() -> None:
    rng = random.Random(1)
    files = [np.unique(np.array(rng.sample(range(5000), rng.randint(0, 300)), dtype=np.uint32)) for _ in range(3000)]
    files[7] = np.array([4999], dtype=np.uint32)
    for g in (0, 1, 2):  # dense trigrams: in most files, stored as bitmaps
        for i in range(0, 3000, 2):
            files[i] = np.union1d(files[i], np.array([g], dtype=np.uint32))
    seg = build_segment(files)
    assert set(seg.formats.tolist()) == {0, 1}
    members = [set(f.tolist()) for f in files]
    for gram in [0, 1, 2, 17, 4999, *rng.sample(range(5000), 200)]:
        row = seg.lookup(gram)
        expected = np.array([gram in m for m in members])
        got = seg.mask(row, len(files)) if row >= 0 else np.zeros(len(files), dtype=bool)
        assert (got == expected).all(), gram
    assert seg.lookup(6000) == -1
    assert len(build_segment([np.zeros(0, dtype=np.uint32)] * 3).grams) == 0


def test_follow_masks_narrow_varint_lists_and_leave_bitmaps_whole() -> None:
    rng = random.Random(3)
    files = [np.unique(np.array(rng.sample(range(300), rng.randint(1, 60)), dtype=np.uint32)) for _ in range(2500)]
    for i in range(0, 2500, 2):  # trigram 0 in most files: a bitmap list
        files[i] = np.union1d(files[i], np.array([0], dtype=np.uint32))
    follows = [np.array([1 << rng.randrange(8) for _ in f], dtype=np.uint8) for f in files]
    seg = build_segment(files, follows)
    masks = [dict(zip(f.tolist(), m.tolist(), strict=True)) for f, m in zip(files, follows, strict=True)]
    for gram in range(300):
        row = seg.lookup(gram)
        for bit in (1, 4, 128):
            got = seg.mask(row, len(files), bit)
            holds = [gram in m for m in masks]
            if seg.formats[row] == 1:
                assert got.tolist() == holds, gram
            else:
                assert got.tolist() == [gram in m and bool(m[gram] & bit) for m in masks], gram
    damaged = build_segment(files, follows)
    damaged.follow_blob = damaged.follow_blob[:-1]  # one mask short: presence alone answers
    row = damaged.lookup(299)
    assert damaged.formats[row] == 0
    assert damaged.mask(row, len(files), 1).tolist() == [299 in m for m in masks]


def test_follow_masks_hold_every_next_byte() -> None:
    rng = random.Random(4)
    for data in (b"abcabc", b"PM_RESUME and PM_RESET", bytes(rng.randrange(256) for _ in range(4000))):
        grams, follows = trigrams_and_follows(data)
        assert grams.tolist() == trigrams(data).tolist()
        for i in range(len(data) - 3):
            row = int(np.searchsorted(grams, gram_of(data[i : i + 3])))
            assert follows[row] & follow_bit(data[i + 3]), (data, i)
    grams, follows = trigrams_and_follows(b"abcd")
    assert follows.tolist() == [follow_bit(ord("d")), 1]  # `bcd` ends the file: bit 0, never a byte's absence


def test_trigrams_and_follows_equal_a_plain_python_reading() -> None:
    """The vectorised extraction (sort, not np.unique) against a byte-by-byte reference."""
    rng = random.Random(24)
    texts = [b"", b"ab", b"abc", b"\xff" * 9, bytes(range(256)) * 3, Path(__file__).read_bytes()]
    texts += [bytes(rng.randrange(256) for _ in range(rng.randrange(3, 3000))) for _ in range(20)]
    for data in texts:
        expected: dict[int, int] = {}
        for i in range(len(data) - 2):
            nxt = follow_bit(data[i + 3]) if i + 3 < len(data) else 1
            expected[gram_of(data[i : i + 3])] = expected.get(gram_of(data[i : i + 3]), 0) | nxt
        grams, follows = trigrams_and_follows(data)
        assert grams.dtype == np.uint32 and follows.dtype == np.uint8
        assert dict(zip(grams.tolist(), follows.tolist(), strict=True)) == expected
        assert grams.tolist() == sorted(expected) == trigrams(data).tolist()


def test_a_segment_holds_at_most_its_size() -> None:
    try:
        build_segment([np.zeros(0, dtype=np.uint32)] * (SEGMENT_FILES + 1))
    except ValueError:
        return
    raise AssertionError("an oversized segment was accepted")


def test_kinds_follow_what_rg_does_with_the_bytes() -> None:
    assert kind_of(b"plain text\n") == TEXT
    assert kind_of(b"\0binary") == BINARY
    assert kind_of(b"x" * 9000 + b"\0") == LATE_NUL
    assert kind_of("\ufeffwide".encode("utf-16-le")) == TRANSCODED
    assert trigrams(b"ab").tolist() == []
    assert trigrams(b"abcabc").tolist() == sorted({0x616263, 0x626361, 0x636162})


def test_the_worker_reads_a_segment_in_its_own_process(tmp_path: Path) -> None:
    tmp_path = tmp_path.resolve()
    (tmp_path / "a.txt").write_text("hello world\n")
    (tmp_path / "b.bin").write_bytes(b"\0\1\2")
    (tmp_path / "link.txt").symlink_to(tmp_path / "a.txt")  # never followed: read as missing
    paths = [str(tmp_path / "a.txt"), str(tmp_path / "b.bin"), str(tmp_path / "gone"), str(tmp_path / "link.txt")]
    env_path = str(Path(fstools.__file__).parents[1])
    proc = subprocess.run(
        [sys.executable, "-m", "fstools._index.worker"],
        input=pickle.dumps((str(tmp_path), paths, 1 << 20)),
        capture_output=True,
        env={"PYTHONPATH": env_path},
        check=True,
    )
    sigs, kinds, arrays = pickle.loads(proc.stdout)
    assert kinds == [TEXT, BINARY, BINARY, BINARY] and sigs[2] == sigs[3] == (-1, -1, -1, -1)
    in_process = read_segment(str(tmp_path), paths, 1 << 20)
    assert in_process[1] == kinds and (in_process[2]["grams"] == arrays["grams"]).all()


@pytest.mark.parametrize(
    ("executable", "started"),
    [(sys.executable, True), ("/bin/true", False), ("", False)],
    ids=["python", "embedding-program", "none"],
)
def test_a_segment_is_read_alike_in_a_worker_or_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, executable: str, started: bool
) -> None:
    # Only a Python is started with -m: a program embedding Python may name itself in sys.executable.
    from fstools._index import build

    tmp_path = tmp_path.resolve()
    (tmp_path / "a.txt").write_text("hello world\n")
    (tmp_path / "b.txt").write_text("goodbye\n")
    paths = [str(tmp_path / "a.txt"), str(tmp_path / "b.txt")]
    wanted = read_segment(str(tmp_path), paths, 1 << 20)
    monkeypatch.setattr(sys, "executable", executable)
    ran: list[object] = []
    real = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **kw: ran.append(a) or real(*a, **kw))
    sigs, kinds, arrays = build._in_child(str(tmp_path), paths, 1 << 20)
    assert bool(ran) == started
    assert (sigs, kinds) == (wanted[0], wanted[1]) and (arrays["grams"] == wanted[2]["grams"]).all()


def test_a_build_worker_imports_nothing_from_the_callers_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fstools._index import build

    evil = tmp_path / "evil"
    evil.mkdir()
    marker = tmp_path / "imported"
    for module in ("pickle", "dataclasses", "numpy", "sitecustomize"):
        (evil / f"{module}.py").write_text(f"open({str(marker)!r}, 'a').write('{module} ')\n")
    tree = (tmp_path / "tree").resolve()
    tree.mkdir()
    (tree / "a.txt").write_text("hello world\n")
    monkeypatch.chdir(evil)
    monkeypatch.setenv("PYTHONPATH", str(evil))
    ran: list[object] = []
    real = subprocess.run
    monkeypatch.setattr(subprocess, "run", lambda *a, **kw: ran.append(a) or real(*a, **kw))
    sigs, kinds, _ = build._in_child(str(tree), [str(tree / "a.txt")], 1 << 20)
    assert ran and not marker.exists()
    assert kinds == [TEXT]


def test_the_index_command_in_process(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    root.mkdir()
    (root / "x.py").write_text("print('hi')\n")

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out, err = io.StringIO(), Tty()
    assert run_index(Namespace(action="build", dir=str(root), json=True), out, err) == 0
    assert '"files":1' in out.getvalue() and "indexing [" in err.getvalue()
    out = io.StringIO()
    assert run_index(Namespace(action="status", dir=str(root), json=False), out, io.StringIO()) == 0
    assert "status: fresh" in out.getvalue()
    assert run_index(Namespace(action="drop", dir=str(root), json=False), io.StringIO(), io.StringIO()) == 0
    err = io.StringIO()
    assert run_index(Namespace(action="build", dir=str(root / "x.py"), json=False), io.StringIO(), err) == 2
    assert "not a directory" in err.getvalue()


def test_the_watched_directories_follow_rgs_glob_dialect(tmp_path: Path) -> None:
    """The directories the index watches are pruned by name as rg prunes them: braces are alternatives."""
    from fstools._index.listing import Filters, entered, tree_files, walk_dirs

    for name in ("build", "dist", "keep", "{build,dist}"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "f.txt").write_text("x\n")
    filters = Filters(("!{build,dist}",), (), 10_000_000)
    listed = {Path(p).parent.name for p in tree_files(str(tmp_path), filters)}
    watched = {Path(d).name for d in walk_dirs(str(tmp_path), filters).dirs} - {tmp_path.name}
    assert listed == watched == {"keep", "{build,dist}"}
    assert not entered("build", filters) and entered("{build,dist}", filters)


def test_the_watched_directories_are_the_ones_rg_enters_under_the_default_secret_globs(tmp_path: Path) -> None:
    """Directories named like the secrets' backup and swap files (brace and class globs), and names
    with glob characters of their own: watched exactly when rg lists what they hold."""
    from fstools._core.sensitive import DEFAULT_SENSITIVE_PATTERNS
    from fstools._index.listing import Filters, tree_files, walk_dirs

    names = ["id_rsa.bak", "x.pem.old", "credentials.json~", "#id_rsa#", "key.pem.swa", "key.pem.swq"]
    names += ["service-account1.json", "pkg.egg-info", "a{b}", "[x]", "*", "normal", "node_modules2"]
    for name in names:
        (tmp_path / name).mkdir()
        (tmp_path / name / "f.txt").write_text("x\n")
    filters = Filters.of(DEFAULT_SENSITIVE_PATTERNS, 10_000_000)
    listed = {Path(p).parent.name for p in tree_files(str(tmp_path), filters)}
    watched = {Path(d).name for d in walk_dirs(str(tmp_path), filters).dirs} - {tmp_path.name}
    assert listed == watched == {"key.pem.swq", "a{b}", "[x]", "*", "normal", "node_modules2"}
