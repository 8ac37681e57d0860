"""A build worker process: reads a pickled (root, paths, max_filesize) on stdin, writes the segment on stdout.

A child started by `_core.binaries.worker_start` (not multiprocessing's spawn, which re-runs the
caller's main module) so that building from any script is safe; it imports only this
family and numpy.
"""

from __future__ import annotations

import pickle
import sys


def main() -> None:
    from .build import read_segment

    root, paths, max_filesize = pickle.load(sys.stdin.buffer)
    pickle.dump(read_segment(root, paths, max_filesize), sys.stdout.buffer, protocol=pickle.HIGHEST_PROTOCOL)
    sys.stdout.buffer.flush()


if __name__ == "__main__":
    main()
