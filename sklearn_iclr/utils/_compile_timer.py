"""Wall time spent compiling numba functions, to report apart from run time."""

import time

from numba.core import event


class CompileTimer(event.Listener):
    """Context manager that sums the wall seconds of numba compilations.

    The first call of a compiled kernel in a fresh environment compiles it
    (seconds to a minute); later processes load numba's on-disk cache. Timing
    a fit inside this context separates the one-time compilation from the
    fit's own time. Nested compilations (a kernel compiling its callees)
    count once.

    Attributes
    ----------
    seconds : float
        Wall seconds spent compiling while the context was active.

    Examples
    --------
    >>> import numba
    >>> from sklearn_iclr.utils import CompileTimer
    >>> with CompileTimer() as timer:
    ...     numba.njit(lambda x: x + 1)(1)
    2
    >>> timer.seconds > 0
    True
    """

    def __init__(self):
        self.seconds = 0.0
        self._depth = 0
        self._start = 0.0
        self._installed = None

    def on_start(self, event):
        if self._depth == 0:
            self._start = time.perf_counter()
        self._depth += 1

    def on_end(self, event):
        self._depth -= 1
        if self._depth == 0:
            self.seconds += time.perf_counter() - self._start

    def __enter__(self):
        self._installed = event.install_listener("numba:compile", self)
        self._installed.__enter__()
        return self

    def __exit__(self, *exc_info):
        return self._installed.__exit__(*exc_info)
