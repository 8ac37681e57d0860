"""A function mapped over items in order on a thread pool, a bounded number of items ahead.

ReadMany and the outline of a directory both go through their files in order and stop at
a budget: work is started a few items ahead of the one being consumed (the pool's threads
run while the GIL is released: system calls, tree-sitter's parser), never the whole list,
and what was started but not consumed is handed back for the caller to undo or drop.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Ahead(Generic[T, R]):
    """`(item, fn(item))` for each item, in order, with up to `depth` items started ahead."""

    def __init__(self, pool: ThreadPoolExecutor, fn: Callable[[T], R], items: Iterator[T], depth: int) -> None:
        self._pool, self._fn, self._items, self._depth = pool, fn, items, depth
        self._window: deque[tuple[T, Future[R]]] = deque()

    def _fill(self) -> None:
        while len(self._window) < self._depth:
            item = next(self._items, None)
            if item is None:
                return
            self._window.append((item, self._pool.submit(self._fn, item)))

    def __iter__(self) -> Iterator[tuple[T, R]]:
        self._fill()
        while self._window:
            item, pending = self._window.popleft()
            yield item, pending.result()
            self._fill()

    def rest(self) -> tuple[list[R], list[T]]:
        """Stop: the results already computed of the items not consumed (to undo), and every item not
        consumed, in order (those started ahead first)."""
        done: list[R] = []
        items: list[T] = []
        for item, pending in self._window:
            if not pending.cancel():
                done.append(pending.result())
            items.append(item)
        self._window.clear()
        return done, items + list(self._items)
