"""ripgrep's benchsuite queries on the Linux kernel tree: Grep's totals equal raw rg's.

Needs the prepared tree (Debian's two .gitignore lines removed, `git init`); set
FSTOOLS_KERNEL_TREE to its path. Skipped otherwise: it searches 1.3 GB several times.
"""

from __future__ import annotations

import os

import pytest

import fstools
from fstools._walk.excludes import exclusion_globs
from tests.helpers.trees import raw_rg

TREE = os.environ.get("FSTOOLS_KERNEL_TREE", "")

pytestmark = pytest.mark.skipif(not os.path.isdir(TREE), reason="set FSTOOLS_KERNEL_TREE to the prepared kernel tree")

# (pattern, extra rg flags, Grep keywords, expected lines with Grep's 10 MB per-file limit)
BENCHSUITE = [
    ("PM_RESUME", [], {}, 39),
    ("PM_RESUME", ["-i"], {"case_insensitive": True}, None),
    ("PM_RESUME", ["-w"], {}, None),
    ("[A-Z]+_RESUME", [], {}, 2161),
    ("ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", [], {}, 111),
    ("ERR_SYS|PME_TURN_OFF|LINK_REQ_RST|CFG_BME_EVT", ["-i"], {"case_insensitive": True}, None),
    (r"\w{5}\s+\w{5}\s+\w{5}\s+\w{5}\s+\w{5}", [], {}, 725),
    (r"\p{Greek}", [], {}, None),
    (r"\wAh", [], {}, None),
]


@pytest.mark.parametrize("pattern,flags,kwargs,expected", BENCHSUITE)
def test_benchsuite_counts_equal_raw_rg(pattern, flags, kwargs, expected):
    ctx = fstools.ExecutionContext(working_dir=TREE, timeout=600)
    if flags == ["-w"]:
        pattern, flags = rf"\b{pattern}\b", []
    excludes = [a for g in exclusion_globs(ctx.sensitive) for a in ("--glob", g)]
    reference = raw_rg("-n", "--max-filesize", str(ctx.grep_max_filesize), *excludes, *flags, "-e", pattern, TREE)
    lines = reference.count(b"\n")
    r = fstools.grep(pattern, ctx=ctx, **kwargs)
    assert r.success and r.metadata["total_matches"] == lines
    if expected is not None:
        assert lines == expected
    content = fstools.grep(pattern, ctx=ctx, output_mode="content", head_limit=0, **kwargs)
    assert content.metadata["returned_matches"] == lines
