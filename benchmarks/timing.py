"""Interleaved repeated timing: fstools and its references, turn about, in one run.

On a shared machine the load drifts over seconds, so each repetition runs every
contender once, in a rotating order, and a ratio is the median of the per-repetition
ratios: both sides of a ratio were measured under the same load.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Mapping


def interleaved(
    fns: Mapping[str, Callable[[], object]], repeats: int, setup: Callable[[], None] | None = None
) -> dict[str, list[float]]:
    """Seconds per call of each function, `repeats` times, in a rotating order.

    `setup` (untimed) runs before every call: mutating benchmarks restore their file there.
    """
    names = list(fns)
    times: dict[str, list[float]] = {name: [] for name in names}
    for i in range(repeats):
        k = i % len(names)
        for name in names[k:] + names[:k]:
            if setup is not None:
                setup()
            fn = fns[name]
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return times


def median_ms(seconds: list[float]) -> float:
    return statistics.median(seconds) * 1000


def paired_ratio(numerator: list[float], denominator: list[float]) -> float:
    """Median of the per-repetition ratios numerator/denominator."""
    return statistics.median(a / b for a, b in zip(numerator, denominator, strict=True))
