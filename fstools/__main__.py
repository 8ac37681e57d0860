"""`python -m fstools`: the same command line as the `fstools` script."""

from ._cli import main

raise SystemExit(main())
