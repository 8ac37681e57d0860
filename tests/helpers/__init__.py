"""Shared test helpers, imported as `tests.helpers.<topic>`."""
