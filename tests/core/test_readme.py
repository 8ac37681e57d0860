"""The README a newcomer reads: small, its quick start runs as written, its references hold.

The Python blocks are executed verbatim in a fresh interpreter (this checkout on
PYTHONPATH, temp files under pytest's tmp_path), so a README that drifts from the API
fails here rather than in a user's hands.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys

import pytest

import fstools
from fstools._agents.toolset import FILE_TOOLS
from tests.helpers.processes import ENV, WORKTREE, run_python

README = WORKTREE / "README.md"
MAX_README_BYTES = 10 * 1024
# CONTRIBUTING.md last: its how-to names a module still to be written.
DOCS = [README, *sorted((WORKTREE / "docs").rglob("*.md")), WORKTREE / "CONTRIBUTING.md"]


def code_blocks(text: str, language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", text, flags=re.M | re.S)


def test_readme_is_at_most_10_kb():
    assert README.stat().st_size <= MAX_README_BYTES


def test_python_blocks_run_as_written(tmp_path):
    blocks = code_blocks(README.read_text(), "python")
    assert blocks, "the README has a quick start"
    for block in blocks:
        result = run_python(block, tmp_path)
        assert result.returncode == 0, result.stderr
        assert result.stderr == ""
        assert str(tmp_path) in result.stdout  # it worked on the temp directory, not somewhere else


def _set_up_commands() -> list[str]:
    section = re.search(r"^## Set up\n(.*?)(?=^## )", README.read_text(), flags=re.M | re.S)
    assert section is not None
    return [line for block in code_blocks(section.group(1), "bash") for line in block.splitlines()]


def test_the_readme_test_command_is_what_ci_runs():
    """CI runs the whole line, verbatim (the install with exactly its extras, then the tests), in a fresh venv."""
    commands = [c for c in _set_up_commands() if "python -m pytest" in c]
    assert len(commands) == 1
    ci = (WORKTREE / ".ci" / "run").read_text()
    assert f"        {commands[0]}\n" in ci
    venv = ci[: ci.index(commands[0])].rsplit("fresh_venv ", 1)[1]
    assert 'source "$venv/bin/activate"' in venv


def test_the_readme_has_two_set_up_commands_a_light_one_first():
    """Trying fstools installs the package alone; the test command adds what the tests need."""
    first, second = _set_up_commands()
    assert first.startswith("pip install -e . && fstools ")
    assert second.startswith("pip install -e '.[test]' && python -m pytest ")


def _cli_examples() -> list[list[str]]:
    section = re.search(r"^## Command line\n(.*?)(?=^## )", README.read_text(), flags=re.M | re.S)
    assert section is not None
    (block,) = code_blocks(section.group(1), "bash")
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def test_every_command_line_example_runs_as_written_in_this_checkout(tmp_path):
    """Each example succeeds here (exit status 0), and none changes the checkout (they are reads and dry runs)."""
    examples = _cli_examples()
    assert len(examples) >= 6 and all(argv[0] == "fstools" for argv in examples)
    before = (WORKTREE / "examples" / "app.py").read_bytes()
    env = {**ENV, "FSTOOLS_CACHE_DIR": str(tmp_path / "cache")}
    for argv in examples:
        result = subprocess.run(
            [sys.executable, "-m", "fstools", *argv[1:]], cwd=WORKTREE, env=env, capture_output=True, text=True
        )
        assert result.returncode == 0, (argv, result.stderr)
        assert result.stdout, argv
    assert (WORKTREE / "examples" / "app.py").read_bytes() == before
    assert not (WORKTREE / "examples" / "greetings.py").exists()


@pytest.mark.parametrize("page", [README, WORKTREE / "docs" / "contract.md"], ids=lambda p: p.name)
def test_error_code_tables_list_every_code_once(page):
    section = re.search(r"^## Error.*?(?=^## |\Z)", page.read_text(), flags=re.M | re.S)
    assert section is not None
    listed = re.findall(r"^\| `([a-z_]+)` \|", section.group(), flags=re.M)
    assert listed == [code.value for code in fstools.ErrorCode]


@pytest.mark.parametrize("page", DOCS, ids=lambda p: str(p.relative_to(WORKTREE)))
def test_relative_links_resolve(page):
    targets = re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", page.read_text())
    missing = [t for t in targets if not (page.parent / t).exists()]
    assert missing == []


def test_docs_name_only_modules_that_exist():
    """Module paths in the docs (`fstools/_grep/runs.py`, `_core/spec.py`) point at real files."""
    named: set[str] = set()
    for page in DOCS[:-1]:  # CONTRIBUTING.md's example adds a module that does not exist
        named |= set(re.findall(r"(?:fstools/)?(_[a-z]+/[a-z_]+\.py)", page.read_text()))
    assert named, "the docs name modules"
    missing = sorted(m for m in named if not (WORKTREE / "fstools" / m).exists())
    assert missing == []


def test_examples_in_the_readme_use_no_placeholder_paths():
    assert "/abs/project" not in README.read_text()
    assert os.path.isfile(WORKTREE / "examples" / "agent_loop.py")  # the README points at it


def test_architecture_describes_every_module():
    """docs/architecture.md's tables name each module of each family, so a new module gets a line."""
    text = (WORKTREE / "docs" / "architecture.md").read_text()
    described = set()
    for family, table in re.findall(r"^### `(_[a-z]+)/`.*?\n(.*?)(?=^#|\Z)", text, flags=re.M | re.S):
        for cell in re.findall(r"^\| (.*?) \|", table, flags=re.M):
            described |= {f"{family}/{name}" for name in re.findall(r"`([a-z0-9_]+\.py)`", cell)}
    modules = {
        f"{path.parent.name}/{path.name}"
        for path in (WORKTREE / "fstools").glob("_*/*.py")
        if path.name != "__init__.py"
    }
    assert sorted(modules - described) == []
    assert sorted(described - modules) == []


def test_the_contract_spells_each_public_signature_as_it_is():
    """docs/contract.md's "Calling fstools" block: names, order, keyword-only marker and defaults of every call."""
    import ast
    import inspect

    block = code_blocks((WORKTREE / "docs" / "contract.md").read_text(), "python")[0]
    calls = re.findall(r"^fstools\.(\w+)\((.*?)\)(?=\s*(?:#.*)?$)", block, flags=re.M | re.S)
    assert set(FILE_TOOLS) <= {n for n, _ in calls}  # every tool of the facade's list
    for name, params in calls:
        documented = ast.parse(f"def f({params}): pass").body[0].args  # type: ignore[attr-defined]
        real = inspect.signature(getattr(fstools, name)).parameters.values()
        positional = [p for p in real if p.kind is p.POSITIONAL_OR_KEYWORD]
        keyword = [p for p in real if p.kind is p.KEYWORD_ONLY]
        assert [a.arg for a in documented.args] == [p.name for p in positional], name
        assert [a.arg for a in documented.kwonlyargs] == [p.name for p in keyword], name
        defaults = [ast.literal_eval(d) for d in documented.defaults]
        assert defaults == [p.default for p in positional if p.default is not p.empty], name
        kw_defaults = [
            ast.literal_eval(d) if d is not None else inspect.Parameter.empty for d in documented.kw_defaults
        ]
        assert kw_defaults == [p.default for p in keyword], name
