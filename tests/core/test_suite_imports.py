"""The test suite in a fresh environment: no test directory hides an installed package, and a test whose
optional package is missing skips, naming the extra that brings it."""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

from tests.helpers.extras import EXTRA_OF

TESTS = Path(__file__).resolve().parents[1]


def test_no_test_directory_shadows_an_installed_package():
    # tests/agents would be the `agents` package (OpenAI's framework) were tests/ itself on sys.path.
    assert TESTS not in [Path(p or ".").resolve() for p in sys.path]
    spec = importlib.util.find_spec("agents")
    assert spec is None or not any(Path(p).resolve() == TESTS / "agents" for p in spec.submodule_search_locations or [])


def test_every_optional_import_skips_naming_its_extra():
    bare = []
    for path in sorted(TESTS.rglob("*.py")):
        for n, line in enumerate(path.read_text().splitlines(), 1):
            call = re.search(r"pytest\.importorskip\((['\"])([\w.]+)\1(.*)", line)
            if call and ("skip_reason(" not in call.group(3) or call.group(2) not in EXTRA_OF):
                bare.append(f"{path.relative_to(TESTS)}:{n}")
    assert not bare, f"use pytest.importorskip(name, reason=skip_reason(name)) (tests.helpers.extras): {bare}"
