"""`python -m fstools`: the same command line as the `fstools` script."""

from ._agents.launch import main

raise SystemExit(main())
