"""Fixtures the journal's tests share."""

import pytest

from fstools._journal import store


@pytest.fixture
def fresh_journals():
    """Open journals forgotten before and after the test: each test opens the cache it set up."""
    store.forget_open()
    yield
    store.forget_open()
