"""The benchmarks: one ``bench_<name>.py`` each, run by ``python -m benchmarks``."""
