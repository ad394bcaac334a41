"""The solver portfolio of :class:`ICEClassifier`: the sweep and a MILP racing.

The combinatorial sweep (``_search``) and HiGHS's branch and bound
(``_milp``) solve the same weighted 0-1 problem. Neither dominates: the sweep
wins by orders of magnitude where ``D`` is small and the LP relaxation loose
(Voice path, Haberman, tied grids), HiGHS where ``D`` is close to ``N``. The
portfolio runs both and returns the first proof, sharing what each finds:

* :class:`Incumbent` holds the best labelling found so far by either. The
  sweep reads its cost as the pruning bound of each chunk of pencils it
  starts; HiGHS starts from its labelling, is given a better one during its
  search, and offers each improving solution back.
* A proof ends the race: the sweep's, when it has examined every candidate;
  HiGHS's, when its dual bound reaches the incumbent's cost. Its ``stop``
  flag then stops the other method: HiGHS at its next callback, the sweep
  before its next chunk of pencils or of a sub-problem's.

The MILP runs in a thread: HiGHS releases the GIL while it works, so two
cores are used, the incumbent is shared memory, and stopping it takes one
callback (no process to start, feed or kill). On a machine whose cores are
all busy, though, the threads of one process share its CPU: each method then
runs at half its pace, however little HiGHS holds the GIL (1000 x 3 tied
grid, load 4.6: the sweep's thread ran 7.5 s, as alone, but waited 31 s
for a CPU, against 6.6 s alone). So the method the cost model expects to
lose runs *niced*: it takes a free core fully, and a busy one's CPU only as
far as the other leaves it. A sweep predicted to end soon nices the MILP's
thread; one predicted long is niced itself, in a thread of its own (started
here and ended with the race, with the joblib threads it starts), so that
the caller's priority never changes: nicing cannot be undone without
privileges, so no thread that outlives the race is ever niced. The bet on
HiGHS is bounded: once HiGHS has used as much CPU as the sweep was predicted
to take, its thread is niced below the sweep's.

Nicing is not enough where HiGHS is the predicted loser: its thread still
takes the GIL in its callbacks and a share of the process's CPU (the 1000 x 3
tied grid's portfolio lost to the sweep alone on a busy machine). So there
HiGHS is judged by its own progress (:class:`MilpHold`). After a head start
of a tenth of the sweep's predicted time (at most 1 CPU s; not niced, or on
a busy machine it would last most of the sweep's time) it projects its
time to proof from the share of the gap its dual bound has closed: CPU spent
/ (dual bound / incumbent's cost). A projection within the sweep's predicted
time lets it run on (random binary 24 x 12: HiGHS proves inside its head
start). A longer one (the tied grid: its dual bound has barely left zero)
holds it, blocked in its callback with the GIL released, until the sweep
ends or has used one and a half times its predicted CPU time (a margin for
the cost model's error; or four times that in wall seconds); then, or at
once where it is closing its gap, HiGHS goes on, niced (held to the race's
end, it winds up at the caller's priority: the fit waits for it). The
sweep's CPU time is the process's less HiGHS's thread's, so only a sweep in
this process holds HiGHS.

Ties between equal costs go to the lower *rank*: the starting labelling
(-1), then the sweep's chunks in order, then the MILP. So when the sweep
finishes first its labelling is the one it would return alone, on any number
of jobs, whenever HiGHS's incumbents arrived.
"""

import os
import sys
import threading
import time

import numpy as np

from ...utils import warn_user

# Rank of the MILP's incumbents: ties go to the sweep's chunks.
MILP_RANK = np.iinfo(np.int64).max
# The MILP's costs are summed in another order than the sweep's: they count
# as this much (relative) above an equal cost of the sweep, so that
# rounding never makes HiGHS's labelling win a tie.
_MILP_ROUNDING = 1e-12


class StopFlag:
    """A ``threading.Event`` that pickles as a fresh, unset flag: a search
    sent to another process (a Dask worker) cannot be reached from here and
    runs its chunk to the end."""

    def __init__(self):
        self._event = threading.Event()

    def set(self):
        self._event.set()

    def is_set(self):
        return self._event.is_set()

    def wait(self, timeout):
        return self._event.wait(timeout)

    def __reduce__(self):
        return (StopFlag, ())


class Incumbent:
    """The best labelling found so far, shared between the two methods.

    Parameters
    ----------
    cost : float
        Weighted 0-1 loss of the starting labelling.
    labels : ndarray of shape (m,)
        The starting labelling (rank -1).

    Attributes
    ----------
    cost, labels, rank : the best offer so far (ties: lower rank).
    version : int
        Number of improvements (HiGHS is given the incumbent when it changed).
    stop : StopFlag
        Set when either method has proved the optimum (or the race ends).
    turn : threading.Event
        Cleared while the sweep is held back between its chunks.
    proved_by : {"sweep", "milp"} or None
        The first method to prove the incumbent optimal.
    """

    def __init__(self, cost, labels):
        self._lock = threading.Lock()
        self.cost, self.labels, self.rank = float(cost), labels, -1
        self.version = 0
        self.stop = StopFlag()
        self.turn = threading.Event()  # cleared: the sweep waits between chunks
        self.turn.set()
        self.proved_by = None
        self.milp_hold = None  # a MilpHold, set by race()

    def hold_milp(self, dual_bound):
        """Called by HiGHS's callbacks with its dual bound (weights' units):
        blocks while a :class:`MilpHold` holds HiGHS back."""
        if self.milp_hold is not None:
            self.milp_hold.check(dual_bound)

    def best(self):
        """``(cost, labels)``, read together."""
        with self._lock:
            return self.cost, self.labels

    def wait_turn(self):
        """Wait while the sweep is held back (until HiGHS has had its bet,
        or the race ends)."""
        while not self.turn.wait(0.05) and not self.stop.is_set():
            pass

    def bound_for(self, rank):
        """The pruning bound of a search ranked ``rank``: candidates strictly
        below it can win. An incumbent of higher rank loses ties, so the bound
        then admits its cost too."""
        with self._lock:
            if self.rank > rank:
                return float(np.nextafter(self.cost, np.inf))
            return self.cost

    def offer(self, cost, labels, rank):
        """Keep ``labels`` when ``(cost, rank)`` beats the incumbent."""
        if rank == MILP_RANK:
            cost = cost * (1 + _MILP_ROUNDING)
        with self._lock:
            if (cost, rank) >= (self.cost, self.rank) or self.proved_by:
                return False
            self.cost, self.labels, self.rank = float(cost), labels, rank
            self.version += 1
            return True

    def prove(self, method):
        """Record that ``method`` proved the incumbent optimal (the first
        proof counts) and stop the other method."""
        with self._lock:
            if self.proved_by is None:
                self.proved_by = method
        self.stop.set()


# HiGHS predicted to lose runs this share of the sweep's predicted time, at
# most HEAD_START_SECONDS of CPU, before its progress is judged.
HEAD_START_SHARE = 0.1
HEAD_START_SECONDS = 1.0
# A hold lasts until the sweep has used this many times its predicted CPU
# time: a margin over the cost model's error, so that a sweep a little over
# its prediction does not release HiGHS, niced, for its last chunks (the fit
# would then wait for that thread to reach its next callback) ...
HOLD_CPU_FACTOR = 1.5
# ... and at most this many times that, in wall seconds (a sweep that waits
# rather than computes holds HiGHS no longer).
HOLD_WALL_FACTOR = 4.0


class MilpHold:
    """Holds HiGHS back, where it is predicted to lose, while its gap says it
    will not prove the optimum before the sweep. Its head start runs at the
    caller's priority: niced from the start, HiGHS would take much longer
    than the head start's CPU time to be judged on a busy machine.

    Parameters
    ----------
    incumbent : Incumbent
    sweep_seconds : float
        The sweep's predicted CPU seconds.

    Attributes
    ----------
    held_seconds : float or None
        Wall seconds HiGHS was held (0 where its projection let it run on);
        None until its progress was judged.
    cpu_before_hold : float or None
        CPU seconds HiGHS's thread had used when its progress was judged;
        None until then.
    """

    def __init__(self, incumbent, sweep_seconds):
        self._incumbent, self.sweep_seconds = incumbent, sweep_seconds
        self.head_start = min(HEAD_START_SECONDS, HEAD_START_SHARE * sweep_seconds)
        self.held_seconds = self.cpu_before_hold = None
        self._process_cpu = time.process_time()  # at the race's start

    def check(self, dual_bound):
        """In HiGHS's thread: once its head start is spent, hold it until the
        sweep ends or has used ``HOLD_CPU_FACTOR`` times its predicted CPU
        time (at most ``HOLD_WALL_FACTOR`` times that in wall seconds),
        unless its projected time to proof is within the sweep's predicted
        time; then, where the race goes on, nice it. Judged once."""
        spent = time.thread_time()  # HiGHS's thread started with the race
        if self.held_seconds is not None or spent < self.head_start:
            return
        self.held_seconds, self.cpu_before_hold = 0.0, spent
        cost, stop = self._incumbent.cost, self._incumbent.stop
        closed = max(dual_bound, 0.0) / cost if cost > 0 else 1.0
        if not (closed > 0 and spent / closed <= self.sweep_seconds):
            start, limit = time.perf_counter(), HOLD_CPU_FACTOR * self.sweep_seconds
            while (
                not stop.wait(_POLL_SECONDS)
                and self._sweep_cpu() < limit
                and time.perf_counter() - start < HOLD_WALL_FACTOR * limit
            ):
                pass
            self.held_seconds = time.perf_counter() - start
        # Niced only to search on: held to the race's end, it winds up at
        # the caller's priority (a niced thread waits long for a busy CPU,
        # and the fit waits for it).
        if not stop.is_set():
            _renice_this_thread(NICENESS)

    def _sweep_cpu(self):
        """CPU seconds the process's other threads used since the race began
        (called in HiGHS's thread)."""
        return time.process_time() - self._process_cpu - time.thread_time()


# Added to the nice value of the thread of the method expected to lose: a
# tenth of the other's CPU weight where both wait for one core.
NICENESS = 10
# How often the caller of a niced sweep looks at HiGHS's CPU time.
_POLL_SECONDS = 0.1


def race(
    sweep,
    milp,
    incumbent,
    *,
    milp_delay=0.0,
    niced=None,
    milp_yields_after=np.inf,
    hold_milp=False,
    sweep_proves=True,
):
    """Run ``sweep`` and ``milp`` side by side until the first proof.

    Parameters
    ----------
    sweep : callable
        ``sweep() -> (n_candidates, finished)``; reads and offers to
        ``incumbent`` and returns early, unfinished, once ``incumbent.stop``
        is set. It runs in the calling thread, unless it is niced.
    milp : callable or None
        ``milp() -> MilpResult``, run in a thread; None runs the sweep alone.
    incumbent : Incumbent
    milp_delay : float, default=0.0
        Seconds the MILP waits before it starts (it never starts when the
        sweep ends first): small searches pay nothing for it.
    niced : {"sweep", "milp"} or None, default=None
        The method whose thread runs with its nice value raised by
        ``NICENESS`` (Linux; elsewhere ignored). A niced sweep runs in a
        thread of its own, so ``sweep`` must then do its work in this process
        (its own threads, started from that thread, are niced with it).
        With a free core for each thread nicing changes nothing; on a loaded
        machine the process's threads share its CPU, and the niced one takes
        only what the other leaves.
    milp_yields_after : float, default=inf
        With a niced sweep: CPU seconds after which HiGHS, still without a
        proof, yields the CPU in turn (its thread is niced to the lowest
        priority, below the sweep's; not for the heuristic). The bet on HiGHS
        then costs the sweep at most about that long, where the sweep wins
        after all. On a busy machine the sweep waits between its chunks
        until then.
    hold_milp : bool, default=False
        With a niced MILP: hold HiGHS back while its progress says it will
        not prove the optimum before the sweep (:class:`MilpHold`, the
        sweep predicted to take ``milp_yields_after`` CPU seconds). Only for
        a sweep in this process: the hold measures its CPU time here.
    sweep_proves : bool, default=True
        Whether a finished sweep is a proof. False for the heuristic: the
        MILP then runs on, to its proof or its time limit.

    Returns
    -------
    n_candidates : int
        Candidates the sweep examined.
    report : dict
        ``"proved_by"`` ("sweep", "milp" or None), ``"sweep_seconds"`` and
        ``"milp_seconds"`` (wall; None when the MILP never started),
        ``"milp_held_seconds"`` and ``"milp_cpu_before_hold"`` (the
        :class:`MilpHold`'s ``held_seconds`` and ``cpu_before_hold``; None
        where HiGHS was not judged).
    """
    outcome = {}
    threads, milp_thread = [], None
    if milp is not None and niced == "milp" and hold_milp:
        incumbent.milp_hold = MilpHold(incumbent, milp_yields_after)
    if milp is not None:

        def run_milp():
            if niced == "milp" and incumbent.milp_hold is None:
                _renice_this_thread(NICENESS)  # (a hold nices it after its head start)
            if not incumbent.stop.wait(milp_delay):
                outcome["milp"] = milp()

        milp_thread = threading.Thread(target=run_milp, name="ICEClassifier MILP")
        threads.append(milp_thread)
    swept = threading.Event()
    if niced == "sweep" and milp is not None and _machine_is_busy():
        incumbent.turn.clear()  # until HiGHS has had its bet
    if niced == "sweep":

        def run_sweep():
            _renice_this_thread(NICENESS)
            try:
                outcome["sweep"] = sweep()
            except BaseException as error:  # raised again in the caller
                outcome["sweep"] = error
            finally:
                swept.set()

        threads.append(threading.Thread(target=run_sweep, name="ICEClassifier sweep"))
    start = time.perf_counter()
    finished = False
    try:
        for thread in threads:
            thread.start()
        if niced == "sweep":
            # (Not join(): a KeyboardInterrupt there would mark the thread
            # ended while it still runs, and the join below would not wait.)
            if milp_thread is not None and milp_yields_after < np.inf:
                while not swept.wait(_POLL_SECONDS):
                    if (
                        _thread_cpu_seconds(milp_thread) > milp_yields_after
                        or not milp_thread.is_alive()
                    ):
                        if sweep_proves:  # (else HiGHS alone can prove)
                            _renice(milp_thread, 19)
                        break
            incumbent.turn.set()
            swept.wait()
            if isinstance(outcome["sweep"], BaseException):
                raise outcome["sweep"]
            n_candidates, finished = outcome["sweep"]
        else:
            n_candidates, finished = sweep()
        sweep_seconds = time.perf_counter() - start
        if finished and sweep_proves:
            incumbent.prove("sweep")
    finally:
        # The heuristic's end is no proof: the MILP goes on to its own end.
        # (An interrupt or an error stops both.)
        if not finished or sweep_proves:
            incumbent.stop.set()
        incumbent.turn.set()
        for thread in threads:
            if thread.ident is not None:  # started
                thread.join()
        incumbent.stop.set()
    result = outcome.get("milp")
    if result is not None and result.status == "error":
        warn_user(
            f"ICEClassifier: HiGHS could not solve the 0-1 loss MILP "
            f"({result.message}); the "
            f"{'sweep' if sweep_proves else 'heuristic'}'s result stands.",
            UserWarning,
        )
    hold = incumbent.milp_hold
    report = {
        "proved_by": incumbent.proved_by,
        "sweep_seconds": sweep_seconds,
        "milp_seconds": None if result is None else result.seconds,
        "milp_held_seconds": None if hold is None else hold.held_seconds,
        "milp_cpu_before_hold": None if hold is None else hold.cpu_before_hold,
    }
    return n_candidates, report


def _machine_is_busy():
    """Whether every core is taken (load average at least the cores; Linux):
    a niced thread then still holds the GIL while it waits for a CPU, and
    HiGHS's callbacks wait for it (7-cube, load 10: 5427 of them, HiGHS 43.6 s
    next to the niced sweep against 20.9 s alone)."""
    try:
        return os.getloadavg()[0] >= (os.cpu_count() or 1)
    except (AttributeError, OSError):  # no load average here
        return False


def _thread_cpu_seconds(thread):
    """CPU seconds a running thread has used (Linux; 0 elsewhere or once it
    has ended)."""
    try:
        with open(f"/proc/self/task/{thread.native_id}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
    except (OSError, TypeError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _renice(thread, nice):
    """Set a running thread's nice value (Linux; never lowered)."""
    if not sys.platform.startswith("linux") or not thread.is_alive():
        return
    try:
        if os.getpriority(os.PRIO_PROCESS, thread.native_id) < nice:
            os.setpriority(os.PRIO_PROCESS, thread.native_id, nice)
    except OSError:  # not permitted here, or ended meanwhile
        pass


def _renice_this_thread(increment):
    """Lower the calling thread's scheduling priority (Linux only: there a
    thread id is a valid target of ``setpriority``)."""
    if not sys.platform.startswith("linux"):
        return
    thread = threading.get_native_id()
    try:
        now = os.getpriority(os.PRIO_PROCESS, thread)
        os.setpriority(os.PRIO_PROCESS, thread, min(now + increment, 19))
    except OSError:  # not permitted here: the race runs as it is
        pass
