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


def test_inline_runs_here_until_an_item_sleeps_then_on_the_pool():
    """Items that never sleep run in the consuming thread; from the first that sleeps, on the pool."""
    import time

    me = threading.get_ident()

    def work(n: int) -> tuple[int, bool]:
        if n == 3:
            time.sleep(0.01)  # as a read that waits for the disk
        return n * n, threading.get_ident() == me

    with ThreadPoolExecutor(4) as pool:
        got = list(Ahead(pool, work, iter(range(10)), 5, inline=True))
    assert [(item, square) for item, (square, _) in got] == [(n, n * n) for n in range(10)]
    here = [item for item, (_, inline) in got if inline]
    assert here == [0, 1, 2, 3]  # the sleeper itself ran here; everything after it went to the pool


def test_inline_stopped_early_hands_back_every_item_not_consumed():
    with ThreadPoolExecutor(2) as pool:
        ahead = Ahead(pool, lambda n: -n, iter(range(20)), 4, inline=True)
        for item, _ in ahead:
            if item == 4:
                break
        done, rest = ahead.rest()
    assert done == [] and rest == list(range(5, 20))  # nothing was started ahead


def test_inline_and_pooled_results_are_the_same(tmp_path):
    """Differential: reading files inline or on the pool gives the same results in the same order."""
    paths = []
    for n in range(30):
        path = tmp_path / f"f{n}.txt"
        path.write_bytes(("line\r\n" * n + "é\n").encode() * (n % 5 + 1))
        paths.append(path)
    with ThreadPoolExecutor(4) as pool:
        inline = list(Ahead(pool, lambda p: p.read_bytes(), iter(paths), 8, inline=True))
        pooled = list(Ahead(pool, lambda p: p.read_bytes(), iter(paths), 8))
    assert inline == pooled
