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

import fstools
from fstools._agents.index_cli import run_index
from fstools._index.build import read_segment
from fstools._index.grams import BINARY, LATE_NUL, TEXT, TRANSCODED, kind_of, trigrams
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
    (tmp_path / "a.txt").write_text("hello world\n")
    (tmp_path / "b.bin").write_bytes(b"\0\1\2")
    paths = [str(tmp_path / "a.txt"), str(tmp_path / "b.bin"), str(tmp_path / "gone")]
    env_path = str(Path(fstools.__file__).parents[1])
    proc = subprocess.run(
        [sys.executable, "-m", "fstools._index.worker"],
        input=pickle.dumps((paths, 1 << 20)),
        capture_output=True,
        env={"PYTHONPATH": env_path},
        check=True,
    )
    sigs, kinds, arrays = pickle.loads(proc.stdout)
    assert kinds == [TEXT, BINARY, BINARY] and sigs[2] == (-1, -1, -1, -1)
    in_process = read_segment(paths, 1 << 20)
    assert in_process[1] == kinds and (in_process[2]["grams"] == arrays["grams"]).all()


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
