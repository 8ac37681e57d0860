"""The repository speaks for itself: scripts/check_wording (run by CI) finds no reference to
documents outside it or to issue numbers, and it does catch one when there is."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.helpers.processes import WORKTREE

CHECK = WORKTREE / "scripts" / "check_wording"
DOC = "SP" + "EC"  # every mention below is spelled in pieces, so this file passes its own check

needs_git = pytest.mark.skipif(
    shutil.which("git") is None or not (WORKTREE / ".git").exists(), reason="needs git and a git checkout"
)


def check(directory: Path) -> subprocess.CompletedProcess:
    # git looks for a repository in `directory` itself only, never in a directory above it.
    env = {**os.environ, "GIT_CEILING_DIRECTORIES": str(directory.parent)}
    return subprocess.run(["bash", str(CHECK), str(directory)], capture_output=True, text=True, timeout=60, env=env)


@needs_git
def test_no_file_refers_to_outside_documents_or_issue_numbers():
    result = check(WORKTREE)
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_check_catches_every_kind_of_mention(tmp_path):
    mentions = [
        f"the contract is ../shared/{DOC}.md",
        f"as {DOC} §4 spells it",
        f"the {DOC} counts",
        "see seed" + "s/004.md",
        "Seed " + "003 lists PDFs",
        "the seed" + "s' names",
        "iss" + "ue 7 asked for it",
        "Iss" + "ue #12",
    ]
    clean = ["ToolSpec and READ_SPEC", "random.Random(seed)", "an issue with the disk", "spec = WalkSpec()"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    (tmp_path / "notes.md").write_text("\n".join(mentions + clean) + "\n")
    (tmp_path / "CHANGELOG.md").write_text("\n".join(mentions) + "\n")
    result = check(tmp_path)
    assert result.returncode == 1
    reported = [line.split(":", 2)[2] for line in result.stdout.splitlines()]
    assert reported == mentions  # every mention, in notes.md only: CHANGELOG.md is exempt, clean lines pass
    (tmp_path / "notes.md").write_text("\n".join(clean) + "\n")
    assert check(tmp_path).returncode == 0


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_the_check_fails_when_it_cannot_look(tmp_path):
    """Outside a git checkout git grep cannot search: that is an error, not a clean bill."""
    (tmp_path / "notes.md").write_text("iss" + "ue 7\n")
    result = check(tmp_path)
    assert result.returncode == 2 and "git grep failed" in result.stderr
