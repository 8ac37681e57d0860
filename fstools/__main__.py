"""`python -m fstools`: the same command line as the `fstools` script."""

from ._agents.cli import main

raise SystemExit(main())
