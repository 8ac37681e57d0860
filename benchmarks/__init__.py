"""fstools benchmarks: corpora, reference implementations, cases shared by the
pytest-benchmark suite and scripts/bench_compare, and the results report."""
