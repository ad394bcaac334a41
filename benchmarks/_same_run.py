"""Fit times of this checkout against another one, measured in the same run.

A speed claim is a ratio of CPU times taken alternately in one run (the machine
is shared, so absolute seconds drift). :func:`alternate` runs a benchmark's
``speed_job(payload)`` in fresh subprocesses, one per fit, cycling through the
code roots (``PYTHONPATH`` points each at its own ``sklearn_iclr``), and
records the load average around every fit. ``--baseline DIR`` of the speed
tables names the other checkout, for example ``git worktree add /tmp/main
main``.
"""

import inspect
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent


def alternate(bench, payloads, roots, repeats):
    """Run ``bench.speed_job(payload)`` for every root, ``repeats`` times, in turn.

    Parameters
    ----------
    bench : str
        The benchmark module (``"bench_brelu_attention"``).
    payloads : dict
        ``{label: payload}``: the JSON-serialisable argument of ``speed_job``
        for each code root.
    roots : dict
        ``{label: path}`` or ``{label: (path, environment)}``: the folder
        holding that code's ``sklearn_iclr``, and variables set for its runs
        (``{"OPENBLAS_NUM_THREADS": "1"}``).
    repeats : int
        Rounds; each round runs every label once.

    Returns
    -------
    runs : dict
        ``{label: [result, ...]}``, the dicts ``speed_job`` returned, each with
        ``"load_average"`` (the 1-minute load before and after the fit).
    """
    runs = {label: [] for label in roots}
    for _ in range(repeats):
        for label, root in roots.items():
            root, extra = root if isinstance(root, tuple) else (root, {})
            before = os.getloadavg()[0]
            env = {**os.environ, **extra, "PYTHONPATH": str(root)}
            command = [
                sys.executable,
                "-c",
                f"import json, sys; import {bench} as b; "
                "print(json.dumps(b.speed_job(json.loads(sys.argv[1]))))",
                json.dumps(payloads[label]),
            ]
            done = subprocess.run(
                command, env=env, cwd=HERE, capture_output=True, text=True
            )
            if done.returncode:
                raise RuntimeError(f"{label} speed job failed:\n{done.stderr}")
            result = json.loads(done.stdout.splitlines()[-1])
            result["load_average"] = [before, os.getloadavg()[0]]
            runs[label].append(result)
    return runs


ONE_BLAS_THREAD = {
    name: "1" for name in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS")
}


def baseline_roots(baseline):
    """The code roots of a speed table: this checkout, and the baseline's.

    The baseline runs twice: as it is (BLAS threads as the machine sets
    them) and on one BLAS thread, which separates what the threads cost from
    what the code changes.
    """
    roots = {"new": ROOT}
    if baseline is not None:
        roots["old"] = baseline
        roots["old_1thread"] = (baseline, ONE_BLAS_THREAD)
    return roots


def median_of(runs, key):
    """The median of ``key`` over the runs of one label."""
    return statistics.median(run[key] for run in runs)


def renamed(estimator_class, params, renames):
    """``params`` with the names ``estimator_class`` does not know renamed.

    ``renames`` maps a current name to the name an older version used
    (``{"max_iter": "n_steps"}``), so that one payload fits both versions.
    """
    known = inspect.signature(estimator_class).parameters
    return {
        (renames[k] if k not in known and k in renames else k): v
        for k, v in params.items()
    }
