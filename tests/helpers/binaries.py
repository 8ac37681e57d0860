"""Markers for tests that exercise an external binary the library itself can do without.

fstools works without `fd` (Glob walks with rg); the tests that drive fd itself skip
with a reason when it is absent. `FSTOOLS_FD=""` makes fd count as absent, so
`FSTOOLS_FD= python -m pytest` shows what a machine without fd runs. CI installs fd.
"""

from __future__ import annotations

import pytest

from fstools._core.binaries import find_binary

# The undecorated lookup: deciding a skip at collection must not fill the cache tests clear.
HAS_FD = find_binary.__wrapped__("fd") is not None

requires_fd = pytest.mark.skipif(
    not HAS_FD,
    reason="needs fd (apt-get install fd-find, or brew install fd); fstools works without it, this test exercises fd",
)
