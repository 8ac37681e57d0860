"""Ahead: in-order results, a bounded window, items handed back when stopped early."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from fstools._read.ahead import Ahead


def test_results_come_in_order_and_stop_hands_back_the_rest():
    with ThreadPoolExecutor(4) as pool:
        ahead = Ahead(pool, lambda n: n * n, iter(range(100)), 5)
        got = []
        for item, square in ahead:
            got.append((item, square))
            if item == 9:
                break
        done, rest = ahead.rest()
    assert got == [(n, n * n) for n in range(10)]
    assert rest == list(range(10, 100))  # the ones started ahead first, then the untouched ones
    assert set(done) <= {n * n for n in range(10, 15)}


def test_weights_bound_what_is_in_flight():
    started: list[int] = []
    lock = threading.Lock()
    in_flight = {"now": 0, "most": 0}
    weights = [40, 40, 40, 200, 10, 10, 10, 10]

    def work(i: int) -> int:
        with lock:
            started.append(i)
            in_flight["now"] += weights[i]
            in_flight["most"] = max(in_flight["most"], in_flight["now"])
        return i

    def consume(ahead: Ahead[int, int]) -> list[int]:
        out = []
        for i, _ in ahead:
            with lock:
                in_flight["now"] -= weights[i]
            out.append(i)
        return out

    with ThreadPoolExecutor(4) as pool:
        ahead = Ahead(pool, work, iter(range(len(weights))), 8, weigh=lambda i: weights[i], capacity=100)
        assert consume(ahead) == list(range(len(weights)))
    assert in_flight["most"] <= 200  # the heavy one alone; otherwise within the capacity
    assert sorted(started) == list(range(len(weights)))  # each once (workers submitted together start in any order)
