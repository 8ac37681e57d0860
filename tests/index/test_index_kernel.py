"""The index against the scan on the Linux kernel tree (set FSTOOLS_KERNEL_TREE; the build takes about a minute)."""

from __future__ import annotations

import os
import random

import pytest

import fstools
from fstools._index.build import build
from tests.helpers.indexed import comparable, random_query

KERNEL = os.environ.get("FSTOOLS_KERNEL_TREE")
pytestmark = pytest.mark.skipif(not KERNEL, reason="set FSTOOLS_KERNEL_TREE to the prepared kernel tree")

QUERIES = ["PM_RESUME", "[A-Z]+_RESUME", "ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", "pm_runtime_(get|put)"]


def test_kernel_grep_is_identical_with_and_without_the_index() -> None:
    root = os.path.realpath(KERNEL or "")
    build(root)
    on = fstools.ExecutionContext(working_dir=root)
    off = fstools.ExecutionContext(working_dir=root, search_index="off")
    rng = random.Random(3)
    queries = [{"pattern": q, "-i": False} for q in QUERIES] + [random_query(rng) for _ in range(40)]
    used = 0
    for args in queries:
        for mode in ({"output_mode": "count", "head_limit": 0}, {"output_mode": "content", "head_limit": 50}):
            with_index = fstools.create_registry().run("Grep", on, **args, **mode)
            without = fstools.create_registry().run("Grep", off, **args, **mode)
            assert comparable(with_index) == comparable(without), args
            used += with_index.metadata.get("index") == "used"
    assert used >= len(QUERIES) * 2
