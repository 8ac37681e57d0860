"""The package version, kept in one place (pyproject.toml reads it from here)."""

__version__ = "0.2.0"
