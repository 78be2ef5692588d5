"""Warm zygotes: each program is still its own process, with nothing of the last one.

Warm zygotes are the default (``CLOSUREBENCH_SANDBOX_WARM=0``: cold); these check what is new
with a zygote: outcomes equal a cold run's, a program's files, IPC objects and
processes do not reach the next program, the zygote
cannot be signalled or read, and a zygote is retired after a program that ended badly.
"""

from __future__ import annotations

import pytest

from closurebench.errors import ConfigError
from closurebench.sandbox import Outcome, SandboxLimits, run_python
from closurebench.sandbox import warm as sandbox_warm

LIMITS = SandboxLimits(cpu_seconds=5, wall_seconds=8, memory_bytes=512 * 2**20)

PROGRAMS = {
    "ok": "import networkx as nx\nG = nx.path_graph(5)\nprint(G.number_of_edges())\n",
    "syntax": "def f(:\n",
    "runtime": "raise KeyError('x')\n",
    "exit": "import sys\nsys.exit(3)\n",
    "forbidden": "import os\nos.fork()\n",
    "memory": "x = bytearray(2 * 512 * 2**20)\n",
    "stdout-cap": "while True:\n    print('x' * 10**6)\n",
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_warm_and_cold_give_the_same_outcome(level: str, name: str) -> None:
    code = PROGRAMS[name]
    warm = run_python(code, limits=LIMITS, isolation=level, warm=True)
    cold = run_python(code, limits=LIMITS, isolation=level, warm=False)
    assert (warm.outcome, warm.detail) == (cold.outcome, cold.detail)
    if warm.outcome is Outcome.OK:
        assert warm.stdout == cold.stdout and warm.graphs == cold.graphs


def test_each_program_is_a_fresh_process_with_fresh_randomness(level: str) -> None:
    code = (
        "import os, random\nimport numpy as np\n"
        "print(os.getpid(), random.random(), np.random.rand())\n"
    )
    seen = [run_python(code, limits=LIMITS, isolation=level, warm=True).stdout for _ in range(3)]
    pids, py_random, np_random = zip(*(line.split() for line in seen), strict=True)
    assert len(set(pids)) == 3 and len(set(py_random)) == 3 and len(set(np_random)) == 3


def test_nothing_written_reaches_the_next_program(wall: str) -> None:
    write = (
        "import os\n"
        "os.makedirs('/sandbox/deep/er', exist_ok=True)\n"
        "open('/sandbox/deep/er/answer.txt', 'w').write('42')\n"
        "open('/tmp/left.txt', 'w').write('x')\n"
        "os.chmod('/sandbox/deep/er', 0)\n"
        "os.chmod('/sandbox/deep', 0)\n"
        "print(sorted(os.listdir('/sandbox')))\n"
    )
    first = run_python(write, limits=LIMITS, isolation="bwrap", audit_hook=False, warm=True)
    assert first.outcome is Outcome.OK and "deep" in first.stdout
    look = "import os\nprint(sorted(os.listdir('/sandbox')))\n"
    for _ in range(3):  # whichever idle zygote serves it
        res = run_python(look, limits=LIMITS, isolation="bwrap", audit_hook=False, warm=True)
        assert res.outcome is Outcome.OK and res.stdout.strip() == "['program.py']"


@pytest.mark.parametrize(
    "code",
    [
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "r = libc.shmget(0x1234, 4096, 0o1666)\n"
        "print('ESCAPED shmget' if r >= 0 else ctypes.get_errno())",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "r = libc.msgget(0x1234, 0o1666)\n"
        "print('ESCAPED msgget' if r >= 0 else ctypes.get_errno())",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "r = libc.semget(0x1234, 1, 0o1666)\n"
        "print('ESCAPED semget' if r >= 0 else ctypes.get_errno())",
        "import ctypes\nlibc = ctypes.CDLL('librt.so.1', use_errno=True)\n"
        "r = libc.mq_open(b'/q', 0o100 | 2, 0o600, None)\n"
        "print('ESCAPED mq_open' if r >= 0 else ctypes.get_errno())",
    ],
    ids=["shm", "msg", "sem", "mqueue"],
)
def test_ipc_that_would_outlive_the_program_is_refused(wall: str, code: str) -> None:
    res = run_python(code, limits=LIMITS, isolation="bwrap", audit_hook=False, warm=True)
    assert "ESCAPED" not in res.stdout
    assert res.outcome is Outcome.OK and res.stdout.strip() == "1", res  # EPERM


def test_the_zygote_cannot_be_signalled_or_read(wall: str) -> None:
    attack = (
        "import os, signal\n"
        "for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGSTOP, signal.SIGKILL):\n"
        "    os.kill(1, sig)\n"
        "for name in ('mem', 'environ', 'fd/0', 'maps'):\n"
        "    try:\n"
        "        open(f'/proc/1/{name}', 'rb').read(16)\n"
        "        print('ESCAPED', name)\n"
        "    except OSError as exc:\n"
        "        print('refused', name, exc.errno)\n"
    )
    res = run_python(attack, limits=LIMITS, isolation="bwrap", audit_hook=False, warm=True)
    assert res.outcome is Outcome.OK and "ESCAPED" not in res.stdout
    assert res.stdout.count("refused") == 4
    after = run_python("print('alive')", limits=LIMITS, isolation="bwrap", warm=True)
    assert after.outcome is Outcome.OK and after.stdout == "alive\n"


def test_a_zygote_is_retired_after_a_timeout(level: str) -> None:
    sandbox_warm.shutdown_zygotes()
    assert run_python("print(1)", limits=LIMITS, isolation=level, warm=True).ok
    key = (sandbox_warm.Isolation(level), LIMITS.tmpfs_bytes)
    (zygote,) = sandbox_warm._IDLE.snapshot(key)
    limits = SandboxLimits(wall_seconds=1, cpu_seconds=30, memory_bytes=LIMITS.memory_bytes)
    res = run_python("while True:\n    pass\n", limits=limits, isolation=level, warm=True)
    assert res.outcome is Outcome.TIMEOUT and res.detail == "wall"
    assert zygote.proc.poll() is not None  # killed, reaped, and not kept
    assert zygote not in sandbox_warm._IDLE.snapshot(key)


def test_small_memory_limits_run_cold_and_the_switch_is_validated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert not sandbox_warm.fits(
        SandboxLimits(memory_bytes=128 * 2**20), sandbox_warm.Isolation.NONE
    )
    monkeypatch.delenv(sandbox_warm.WARM_ENV, raising=False)
    assert sandbox_warm.warm_enabled()  # the default
    monkeypatch.setenv(sandbox_warm.WARM_ENV, "0")
    assert not sandbox_warm.warm_enabled()
    monkeypatch.setenv(sandbox_warm.WARM_ENV, "1")
    assert sandbox_warm.warm_enabled()
    monkeypatch.setenv(sandbox_warm.WARM_ENV, "maybe")
    with pytest.raises(ConfigError, match="CLOSUREBENCH_SANDBOX_WARM"):
        run_python("print(1)", isolation="none")
