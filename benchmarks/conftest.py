"""pytest-benchmark suite: `python -m pytest benchmarks/` (not collected by the unit tests).

Cases whose tool has not landed, and kernel cases when scripts/fetch_corpus has not
prepared the tree, are skipped at collection time with the reason. In short mode
(`--benchmark-disable`) every case still runs once with its correctness checks.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from benchmarks import cases, corpus


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        defn = callspec.params.get("defn") if callspec else None
        if isinstance(defn, cases.CaseDef):
            reason = defn.missing() or (corpus.kernel_missing() if defn.group == "kernel" else None)
            if reason:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def corpus_of() -> Iterator[Callable[[str], Any]]:
    """The corpus object of a case group, built once per session; big files removed at the end."""
    built: dict[str, Any] = {}

    def get(group: str) -> Any:
        if group not in built:
            built[group] = cases.corpus_for(group)
        return built[group]

    yield get
    corpus.remove_files()
