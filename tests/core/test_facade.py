"""The public facade: every name resolves, and importing fstools loads none of the machinery."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import fstools
from fstools._agents.toolset import FILE_TOOLS, JOURNAL_TOOLS

ROOT = Path(__file__).resolve().parents[2]
# Every public name -> its module: the facade's table, and the tools' functions from the list of tools.
PUBLIC = {**fstools._EXPORTS, **FILE_TOOLS, **JOURNAL_TOOLS}


def test_every_public_name_resolves_to_its_module():
    assert set(fstools.__all__) == {*PUBLIC, "__version__"}
    assert not set(fstools._EXPORTS) & {*FILE_TOOLS, *JOURNAL_TOOLS}, "a tool's module is written once"
    for name in PUBLIC:
        value = getattr(fstools, name)
        assert value.__module__ == f"fstools.{PUBLIC[name]}", name
    assert dir(fstools) == fstools.__all__, "dir() shows the public API and nothing else"
    assert isinstance(fstools.__version__, str)


def test_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        fstools.nope  # noqa: B018


def test_type_checking_imports_match_the_export_table():
    """Type checkers read the TYPE_CHECKING block; it must name exactly what __getattr__ serves."""
    tree = ast.parse((ROOT / "fstools" / "__init__.py").read_text())
    block = next(n for n in tree.body if isinstance(n, ast.If) and getattr(n.test, "id", "") == "TYPE_CHECKING")
    imported = {alias.name: node.module for node in block.body for alias in node.names}
    assert {name: module.lstrip(".") for name, module in imported.items()} == PUBLIC


def test_import_loads_no_private_module():
    code = "import sys, fstools; print(sorted(m for m in sys.modules if m.startswith('fstools.')))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "['fstools.__version__']"


def test_first_call_loads_only_what_it_needs():
    code = (
        "import sys, os, fstools; fstools.ls(os.getcwd());"
        "print(sorted(m for m in ('fstools._read.read', 'fstools._grep.grep', 'fstools._change.edit', 'PIL', 'pypdf') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
