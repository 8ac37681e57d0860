"""The test suite: a package, so that its directories (tests/agents, ...) never shadow an installed package."""
