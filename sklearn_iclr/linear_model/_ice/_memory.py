"""The memory this process may still allocate, checked before large tables.

Every table of :class:`ICEClassifier` above ``CHECKED_BYTES`` (pencil
tables, kernel workspaces, the nested sub-problems' tables, the MILP) is
compared with :func:`available_memory` before it is allocated, and refused
with the figure when it would not fit.
"""

import os

import numpy as np

# Allocations below this are not checked (the interpreter's own slack).
CHECKED_BYTES = 256 * 2**20


def available_memory():
    """Bytes this process may still allocate: the least of the system's
    available memory (``MemAvailable``), the address-space limit
    (``RLIMIT_AS``, e.g. ``prlimit --as``) less the current address space,
    and the cgroup's memory limit less its usage; ``inf`` where none is known
    (not Linux)."""
    limits = [np.inf, _address_space_left()]
    meminfo = _read_fields("/proc/meminfo")
    if "MemAvailable" in meminfo:
        limits.append(meminfo["MemAvailable"] * 1024)
    cgroup = _read_number("/sys/fs/cgroup/memory.max")
    if cgroup is not None:
        limits.append(cgroup - (_read_number("/sys/fs/cgroup/memory.current") or 0))
    return max(min(limits), 0)


def _address_space_left():
    try:
        import resource
    except ImportError:  # not a Unix
        return np.inf
    soft = resource.getrlimit(resource.RLIMIT_AS)[0]
    if soft == resource.RLIM_INFINITY:
        return np.inf
    return soft - _read_fields(f"/proc/{os.getpid()}/status").get("VmSize", 0) * 1024


def _read_fields(path):
    """``name: value kB`` lines as {name: int}; {} when unreadable."""
    try:
        with open(path) as file:
            lines = file.readlines()
    except OSError:
        return {}
    fields = {}
    for line in lines:
        name, _, rest = line.partition(":")
        value = rest.split()
        if value and value[0].isdigit():
            fields[name] = int(value[0])
    return fields


def _read_number(path):
    try:
        with open(path) as file:
            text = file.read().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def format_bytes(n_bytes):
    for unit, size in (("TiB", 2**40), ("GiB", 2**30), ("MiB", 2**20)):
        if n_bytes >= size:
            return f"{n_bytes / size:.3g} {unit}"
    return f"{n_bytes / 1024:.3g} KiB"


def check_memory(n_bytes, what, advice):
    """Refuse, before it is made, an allocation that would not fit.

    Parameters
    ----------
    n_bytes : int
        The allocation's size (those below ``CHECKED_BYTES`` always pass).
    what : str
        What would be allocated, for the message.
    advice : str
        What to change, for the message.
    """
    if n_bytes < CHECKED_BYTES:
        return
    available = available_memory()
    if n_bytes > available:
        raise ValueError(
            f"{what} would need {format_bytes(n_bytes)} of memory; this process "
            f"has {format_bytes(available)} available. {advice}"
        )
