"""Definitions and references resolved by the real servers, and the reasons when there is no answer."""

from __future__ import annotations

import os

import pytest

import fstools
from fstools._lsp.navigate import definition, references
from fstools._lsp.pool import POOL
from tests.helpers.servers import fake, requires_lsp, requires_server

LIB = "def helper(x: int) -> int:\n    return x + 1\n\n\ndef other() -> int:\n    return 0\n"
APP = "from lib import helper\n\n\ndef helper_user() -> int:\n    return helper(2) + helper(3)\n"


@pytest.fixture(scope="module")
def python_project(tmp_path_factory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("nav")
    (root / "lib.py").write_text(LIB)
    (root / "app.py").write_text(APP)
    ctx = fstools.ExecutionContext(working_dir=str(root), language_servers="auto", lsp_timeout=60)
    return ctx, os.path.realpath(root)


@requires_server("python")
def test_the_definition_of_a_name_used_in_another_file(python_project):  # type: ignore[no-untyped-def]
    ctx, root = python_project
    app = os.path.join(root, "app.py")
    found = definition(ctx, app, 5, 12)  # `helper` in `return helper(2)`, 1-based as Read shows it
    assert found.state == "done", found.reason
    assert found.server == "basedpyright" or found.server == "pyright"
    assert [(p.path, p.line, p.column) for p in found.places] == [(os.path.join(root, "lib.py"), 1, 5)]


@requires_server("python")
def test_the_references_of_a_definition_across_files(python_project):  # type: ignore[no-untyped-def]
    ctx, root = python_project
    lib = os.path.join(root, "lib.py")
    found = references(ctx, lib, 1, 5)
    assert found.state == "done", found.reason
    places = sorted((os.path.basename(p.path), p.line, p.column) for p in found.places)
    # The definition, and in app.py the import and both calls; never `helper_user`, which only contains the name.
    assert places == [("app.py", 1, 17), ("app.py", 5, 12), ("app.py", 5, 24), ("lib.py", 1, 5)]


@requires_lsp
def test_no_answer_says_why(tmp_path):  # type: ignore[no-untyped-def]
    path = str(tmp_path / "a.py")
    (tmp_path / "a.py").write_text("x = 1\n")
    off = fstools.ExecutionContext(working_dir=str(tmp_path))
    assert definition(off, path, 1, 1).state == "off"
    servers = {"python": fake("silent")}
    silent = fstools.ExecutionContext(working_dir=str(tmp_path), language_servers=servers, lsp_timeout=0.5)
    POOL.reset()
    try:
        first = references(silent, path, 1, 1)
        assert first.state == "not_done" and first.reason
        assert "within" in references(silent, path, 1, 1).reason or "starting" in first.reason
    finally:
        POOL.reset()
    (tmp_path / "a.txt").write_text("x\n")
    nothing = definition(silent, str(tmp_path / "a.txt"), 1, 1)
    assert nothing.state == "no_server" and "no language server" in nothing.reason
