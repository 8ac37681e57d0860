"""Every tool on the benchmark corpora, timed by pytest-benchmark after its result is checked.

The cases (calls, checks, corpora) are the ones scripts/bench_compare uses; budgets are
not asserted here, bench_compare checks them as ratios side by side with the references.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from benchmarks.cases import CASES, CaseDef


@pytest.mark.parametrize("defn", CASES.defs, ids=lambda d: d.id)
def test_tool(benchmark: Any, corpus_of: Callable[[str], Any], defn: CaseDef) -> None:
    case = defn.build(corpus_of(defn.group))
    benchmark.group = defn.tools[0]
    if case.setup is not None:
        case.setup()
    case.check(case.run())
    if case.setup is None:
        result = benchmark(case.run)
    else:
        result = benchmark.pedantic(case.run, setup=case.setup, rounds=defn.repeats, warmup_rounds=1)
    case.check(result)
