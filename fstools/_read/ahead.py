"""A function mapped over items in order on a thread pool, a bounded number of items ahead.

ReadMany and the outline of a directory both go through their files in order and stop at
a budget: work is started a few items ahead of the one being consumed (the pool's threads
run while the GIL is released: system calls, tree-sitter's parser), never the whole list,
and what was started but not consumed is handed back for the caller to undo or drop. With
`weigh`, items are started ahead only while the items in flight weigh no more than
`capacity` together (ReadMany: their sizes within its character budget), one at a time past it.

With `inline`, items run in the consuming thread while none of them sleeps (a page-cache read
never does: there the pool's hand-offs and GIL switches only cost, a quarter more CPU for 50
warm source files); from the first that waited (the thread gave up its core: a disk or network
read), the rest go to the pool as above. The results are the same either way.
"""

from __future__ import annotations

import resource
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")

_THREAD_USAGE = getattr(resource, "RUSAGE_THREAD", None)  # Linux: this thread's voluntary context switches


def _sleeps() -> int:
    """Times this thread has slept so far (-1 where that cannot be told: never inline then)."""
    return resource.getrusage(_THREAD_USAGE).ru_nvcsw if _THREAD_USAGE is not None else -1


class Ahead(Generic[T, R]):
    """`(item, fn(item))` for each item, in order, with up to `depth` items started ahead."""

    def __init__(
        self,
        pool: ThreadPoolExecutor,
        fn: Callable[[T], R],
        items: Iterator[T],
        depth: int,
        *,
        weigh: Callable[[T], int] | None = None,
        capacity: int = 0,
        inline: bool = False,
    ) -> None:
        self._pool, self._fn, self._items, self._depth = pool, fn, items, depth
        self._weigh, self._capacity = weigh, capacity
        self._inline = inline and _THREAD_USAGE is not None
        self._window: deque[tuple[T, Future[R], int]] = deque()
        self._load = 0
        self._next: tuple[T, int] | None = None

    def _peek(self) -> tuple[T, int] | None:
        if self._next is None:
            item = next(self._items, None)
            if item is not None:
                self._next = (item, self._weigh(item) if self._weigh is not None else 0)
        return self._next

    def _fill(self) -> None:
        while len(self._window) < self._depth:
            upcoming = self._peek()
            if upcoming is None:
                return
            item, weight = upcoming
            if self._window and self._weigh is not None and self._load + weight > self._capacity:
                return  # enough in flight: the next one starts when this much has been consumed
            self._next = None
            self._window.append((item, self._pool.submit(self._fn, item), weight))
            self._load += weight

    def __iter__(self) -> Iterator[tuple[T, R]]:
        yield from self._in_this_thread()
        self._fill()
        while self._window:
            item, pending, weight = self._window.popleft()
            result = pending.result()
            self._load -= weight
            yield item, result
            self._fill()

    def _in_this_thread(self) -> Iterator[tuple[T, R]]:
        """The items run here, one at a time, until one made the thread sleep (then the pool takes over)."""
        while self._inline:
            upcoming = self._peek()
            if upcoming is None:
                return
            self._next = None
            before = _sleeps()
            result = self._fn(upcoming[0])
            self._inline = _sleeps() == before
            yield upcoming[0], result

    def rest(self) -> tuple[list[R], list[T]]:
        """Stop: the results already computed of the items not consumed (to undo), and every item not
        consumed, in order (those started ahead first)."""
        done: list[R] = []
        items: list[T] = []
        for item, pending, _ in self._window:
            if not pending.cancel():
                done.append(pending.result())
            items.append(item)
        self._window.clear()
        if self._next is not None:
            items.append(self._next[0])
            self._next = None
        return done, items + list(self._items)
