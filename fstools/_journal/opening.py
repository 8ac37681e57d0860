"""Opening a root's journal: the cache directory's (`store.journal_for`), or the storage plugged in.

with use_storage(lambda root: MyStorage(root)):
    ...   # every change journaled, undone and rewound through MyStorage
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

from .storage import JournalStorage
from .store import journal_for

_Opener = Callable[[str], JournalStorage]
_opener: _Opener | None = None


def open_storage(root: str) -> JournalStorage:
    """The journal of the canonical `root`; `store.Unavailable` says why it cannot be used."""
    if _opener is not None:
        return _opener(root)
    return journal_for(root)


@contextlib.contextmanager
def use_storage(opener: _Opener) -> Iterator[None]:
    """Open every journal with `opener` (root -> storage) while the block runs, instead of the cache directory."""
    global _opener
    previous, _opener = _opener, opener
    try:
        yield
    finally:
        _opener = previous
