"""Never a silent partial answer: each way a search can leave files out, forced, says so in the result
(`timed_out`, `skipped`, a warning the model reads in to_text()).

The faults are injected (a stand-in rg, a file changed between two steps of the search, a spent
grace); everything else is real.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

import fstools
from fstools._core import confinement
from fstools._core.binaries import find_binary
from fstools._grep import runs
from tests.helpers.trees import write

FAKE_RG = """\
import os, signal, subprocess, sys
real = subprocess.run([os.environ["REAL_RG"], *sys.argv[1:]], capture_output=True, close_fds=False)
fault = os.environ["FAKE_RG_FAULT"]
out = real.stdout
if fault == "killed":
    out = out[: len(out) // 2]
sys.stdout.buffer.write(out)
sys.stdout.flush()
sys.stderr.buffer.write(real.stderr)
if fault == "message":
    sys.stderr.write("rg: something the search could not do\\n")
    sys.stderr.flush()
if fault == "chatty":
    for n in range(400):  # past one read of the pipe
        sys.stderr.write("rg: " + os.environ["FAKE_RG_ROOT"] + f"/x{n}: Permission denied (os error 13)\\n")
if fault == "killed":
    os.kill(os.getpid(), signal.SIGKILL)
sys.exit(real.returncode)
"""


@pytest.fixture
def fake_rg(tmp_path, monkeypatch):
    script = tmp_path / "fake_rg"
    script.write_text(f"#!{sys.executable}\n{FAKE_RG}")
    script.chmod(0o755)
    monkeypatch.setenv("REAL_RG", find_binary("rg"))
    monkeypatch.setenv("FSTOOLS_RG", str(script))
    find_binary.cache_clear()
    yield lambda fault: monkeypatch.setenv("FAKE_RG_FAULT", fault)
    find_binary.cache_clear()


@pytest.fixture
def unconfined(monkeypatch):
    """Landlock reported missing: the files a walk proposes are searched through pinned descriptors."""
    monkeypatch.setattr(confinement.landlock, "abi", 0)


def _grep(project: Path, **kwargs) -> fstools.ToolResult:
    ctx = fstools.ExecutionContext(working_dir=str(project), search_index="off")
    r = fstools.grep("needle", ctx=ctx, **kwargs)
    assert r.success, r.error
    return r


def test_files_the_spent_grace_left_unsearched_are_counted(project, unconfined, monkeypatch):
    for n in range(600):  # three batches of descriptors
        write(project / f"f{n:03}.txt", "needle\n")
    budgets: list[runs.Budget] = []
    init, batches = runs.Budget.__init__, runs.Pinner.batches

    def remembered(self, seconds):
        init(self, seconds)
        budgets.append(self)

    def spent_after_one(self, paths, missed=None):  # the grace runs out while the first batch is searched
        for n, batch in enumerate(batches(self, paths, missed)):
            if n:
                budgets[-1].grace_end = 0.0
            yield batch

    monkeypatch.setattr(runs.Budget, "__init__", remembered)
    monkeypatch.setattr(runs.Pinner, "batches", spent_after_one)
    r = _grep(project, output_mode="count", head_limit=0)
    searched = r.metadata["total_files"]
    assert 0 < searched < 600 and r.metadata["timed_out"] is True
    assert r.metadata["skipped"]["unsearched"] == 600 - searched
    assert f"{600 - searched} file(s) that may match were not searched" in r.to_text()


@pytest.mark.parametrize("mode", ["files_with_matches", "content"])
def test_files_that_changed_between_the_walk_and_their_search_are_named(project, unconfined, monkeypatch, mode):
    for name in ("keep", "gone", "linked", "grown"):
        write(project / f"{name}.txt", "needle\n")
    write(project / "other.txt", "needle elsewhere\n")
    proposed = runs.Searcher.proposed

    def then_changed(self):
        found = proposed(self)
        os.remove(project / "gone.txt")
        os.remove(project / "linked.txt")
        os.symlink(project / "other.txt", project / "linked.txt")
        (project / "grown.txt").write_text("needle\n" + "x" * 2000)
        return found

    monkeypatch.setattr(runs.Searcher, "proposed", then_changed)
    ctx = fstools.ExecutionContext(working_dir=str(project), search_index="off", grep_max_filesize=1000)
    r = fstools.grep("needle", ctx=ctx, output_mode=mode, head_limit=0)
    assert r.success, r.error
    real = project.resolve()
    # A file gone is counted, not named: a walk that could not be confined may have been led to that name.
    assert r.metadata["skipped_paths"]["changed"] == [str(real / "linked.txt")]
    assert r.metadata["skipped"]["changed"] == 2 and str(real / "grown.txt") in r.metadata["skipped_paths"]["too_large"]
    text = r.to_text()
    assert "2 file(s) changed while the search ran" in text and "larger than 1000 bytes" in text
    assert str(real / "keep.txt") in r.output and str(real / "gone.txt") not in r.output


def test_a_file_rewritten_between_the_count_and_its_page_is_named(project, monkeypatch):
    target = write(project / "a.txt", "needle 1\nneedle 2\nneedle 3\n")
    write(project / "b.txt", "needle b\n")
    count_files = runs.Searcher.count_files

    def then_rewritten(self, candidates):
        hits = count_files(self, candidates)
        target.write_text("needle 1\n")  # two of the counted lines are gone when the page is fetched
        return hits

    monkeypatch.setattr(runs.Searcher, "count_files", then_rewritten)
    r = _grep(project, output_mode="content", head_limit=10)
    assert r.metadata["skipped_paths"]["changed"] == [str(target.resolve())]
    assert "changed while the search ran" in r.to_text()


def test_an_rg_message_that_names_no_path_is_shown(project, fake_rg):
    write(project / "a.txt", "needle\n")
    fake_rg("message")
    r = _grep(project)
    assert r.metadata["total_files"] == 1
    assert "rg: something the search could not do" in r.to_text()


def test_messages_past_what_is_kept_say_so(project, fake_rg, monkeypatch):
    from fstools._core import watchdog

    write(project / "a.txt", "needle\n")
    monkeypatch.setattr(watchdog, "_STDERR_CAP", 4)  # the first read is kept, the rest only noticed
    monkeypatch.setenv("FAKE_RG_ROOT", str(project.resolve()))
    fake_rg("chatty")
    r = _grep(project)
    assert "rg wrote more messages than are kept" in r.to_text()


@pytest.mark.parametrize("mode", ["files_with_matches", "content"])
def test_an_rg_run_killed_by_a_signal_says_its_output_was_cut(project, fake_rg, mode):
    for n in range(50):
        write(project / f"f{n:02}.txt", "needle\n")
    fake_rg("killed")
    r = _grep(project, output_mode=mode, head_limit=0)
    assert r.metadata["total_files"] < 50
    assert "an rg run ended abnormally (killed by signal 9)" in r.to_text()


def test_a_search_that_misses_nothing_says_nothing(project):
    write(project / "a.txt", "needle\n")
    r = _grep(project, output_mode="content", head_limit=10)
    assert r.metadata["warnings"] == [] and r.metadata["skipped"]["changed"] == 0
    assert r.metadata["skipped"]["unsearched"] == 0


def test_a_bad_ignore_rule_above_the_project_is_neither_named_nor_repeated(tmp_path):
    """rg reads ignore files of the directories above the project too: a bad rule there concerns no file
    of the search, and its path lies outside the sandbox, so the result says nothing of it."""
    write(tmp_path / ".ignore", "x[\n")
    project = tmp_path / "proj"
    write(project / "a.txt", "needle\n")
    ctx = fstools.ExecutionContext(working_dir=str(project))
    r = fstools.grep("needle", ctx=ctx)
    assert r.success and r.metadata["total_files"] == 1, r.error
    warnings = "\n".join(r.metadata.get("warnings", []))
    assert str(tmp_path / ".ignore") not in warnings and "x[" not in warnings, warnings
