"""Escape tests (issue 12): each is contained, reported as its outcome, at every level.

Every test runs at each isolation level the machine has (bwrap, unshare, none), asserts
the outcome, that nothing escaped, and — by running on — that the parent survived.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from closurebench.sandbox import Outcome, SandboxLimits, run_python


def test_write_outside_the_temp_dir_is_refused(
    level: str, limits: SandboxLimits, tmp_path: Path
) -> None:
    target = tmp_path / "escaped.txt"
    created = tmp_path / "created.txt"
    code = (
        "import os, pathlib\n"
        f"for attempt in (lambda: open({str(target)!r}, 'w').write('x'),\n"
        f"                lambda: pathlib.Path({str(target)!r}).write_text('x'),\n"
        f"                lambda: os.open({str(created)!r}, os.O_CREAT | os.O_WRONLY)):\n"
        "    try:\n"
        "        attempt()\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__)\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert not target.exists() and not created.exists()
    if level == "bwrap":  # the host's /tmp is not there: the path names the private tmpfs
        assert res.outcome is Outcome.OK and res.stdout.split() == ["FileNotFoundError"] * 3
    else:
        assert res.outcome is Outcome.FORBIDDEN
        assert res.detail.startswith("open(write)")


def test_api_key_in_the_parent_environment_does_not_leak(
    level: str, limits: SandboxLimits, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = "sk-closurebench-test-5ecret-value"
    monkeypatch.setenv("CLOSUREBENCH_TEST_SECRET", secret)
    code = (
        "import os\n"
        "print(dict(os.environ))\n"
        f"for pid in (os.getppid(), {os.getpid()}, 1):\n"
        "    try:\n"
        "        print(open(f'/proc/{pid}/environ', 'rb').read())\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__)\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.FORBIDDEN
    assert res.detail.startswith("open(read) /proc/")
    assert secret not in res.stdout and secret not in res.stderr
    assert "CLOSUREBENCH_TEST_SECRET" not in res.stdout


def test_environment_is_built_from_scratch(level: str, limits: SandboxLimits) -> None:
    res = run_python("import os\nprint(sorted(os.environ))", limits=limits, isolation=level)
    assert res.outcome is Outcome.OK
    names = set(eval(res.stdout))
    allowed = {
        "PATH",
        "LANG",
        "LC_ALL",
        "HOME",
        "TMPDIR",
        "OPENBLAS_NUM_THREADS",
        "OMP_NUM_THREADS",
        "MKL_NUM_THREADS",
        "NUMEXPR_NUM_THREADS",
        "VECLIB_MAXIMUM_THREADS",
        "MPLBACKEND",
        "OPENBLAS_CORETYPE",
        "OPENBLAS_L2_SIZE",
        "LC_CTYPE",
        "PWD",
    }
    assert names <= allowed


def test_tcp_connection_to_a_loopback_listener_is_refused(
    level: str, limits: SandboxLimits
) -> None:
    with socket.create_server(("127.0.0.1", 0)) as listener:
        port = listener.getsockname()[1]
        code = (
            "import socket\n"
            f"s = socket.create_connection(('127.0.0.1', {port}), timeout=2)\n"
            "s.sendall(b'hello')\n"
        )
        res = run_python(code, limits=limits, isolation=level)
        assert res.outcome is Outcome.FORBIDDEN
        assert res.detail.startswith("socket.")
        listener.setblocking(False)
        with pytest.raises(BlockingIOError):
            listener.accept()  # nobody ever connected


@pytest.mark.parametrize(
    ("code", "detail"),
    [
        (
            "import os\nfor _ in range(1000):\n"
            "    try:\n        os.fork()\n    except Exception:\n        pass\n",
            "os.fork",
        ),
        (
            "import subprocess\nfor _ in range(100):\n"
            "    try:\n        subprocess.Popen(['sleep', '60'])\n"
            "    except Exception:\n        pass\n",
            "subprocess.Popen",
        ),
        ("import os\nos.system('touch /tmp/closurebench-escape')\n", "os.system"),
        ("import os\nos.posix_spawn('/bin/true', ['true'], {})\n", "os.posix_spawn"),
        ("import os\nos.execv('/bin/true', ['true'])\n", "os.exec"),
        ("import multiprocessing\nmultiprocessing.Process(target=print).start()\n", None),
    ],
    ids=["fork-loop", "popen-loop", "system", "posix_spawn", "exec", "multiprocessing"],
)
def test_process_creation_is_refused(
    level: str, limits: SandboxLimits, code: str, detail: str | None
) -> None:
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.FORBIDDEN
    if detail is not None:
        assert res.detail == detail
    assert res.wall_seconds < limits.wall_seconds


@pytest.mark.parametrize(
    "code",
    [
        "x = bytearray(2 * 512 * 2**20)\n",
        "chunks = []\nwhile True:\n    chunks.append(bytearray(16 * 2**20))\n",
        "import numpy as np\nx = np.ones((40000, 40000))\n",
    ],
    ids=["bytearray", "grow", "numpy"],
)
def test_allocating_beyond_the_memory_limit(level: str, limits: SandboxLimits, code: str) -> None:
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.MEMORY_LIMIT, res


def test_infinite_loop_is_stopped_at_the_wall_deadline(level: str) -> None:
    limits = SandboxLimits(wall_seconds=1.0, cpu_seconds=30)
    res = run_python("while True:\n    pass\n", limits=limits, isolation=level)
    # The wall deadline, not the 30 s CPU cap, ended it: no clock bound is needed.
    assert res.outcome is Outcome.TIMEOUT and res.detail == "wall"


def test_cpu_limit_stops_a_busy_program(level: str) -> None:
    limits = SandboxLimits(wall_seconds=20, cpu_seconds=1)
    res = run_python("while True:\n    pass\n", limits=limits, isolation=level)
    assert res.outcome is Outcome.TIMEOUT and res.detail.startswith("cpu")


def test_printing_gigabytes_hits_the_output_cap_quickly(level: str, limits: SandboxLimits) -> None:
    res = run_python("while True:\n    print('x' * 10**6)\n", limits=limits, isolation=level)
    # Stopped at the cap (an outcome of its own), not at the wall deadline (a timeout).
    assert res.outcome is Outcome.OUTPUT_LIMIT and res.detail == "stdout"
    assert len(res.stdout) <= limits.stdout_bytes


def test_stderr_flood_hits_the_cap(level: str, limits: SandboxLimits) -> None:
    res = run_python(
        "import sys\nwhile True:\n    sys.stderr.write('e' * 10**6)\n",
        limits=limits,
        isolation=level,
    )
    assert res.outcome is Outcome.OUTPUT_LIMIT and res.detail == "stderr"


@pytest.mark.parametrize(
    ("code", "detail"),
    [
        ("import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nlibc.system(b'true')\n", "ctypes.dlopen"),
        ("import ctypes\nctypes.CDLL(None).getpid()\n", "ctypes.dlopen"),
        ("import ctypes\nctypes.pythonapi.Py_GetVersion\n", "ctypes.dlsym"),
        ("import ctypes\nctypes.string_at(id(1), 8)\n", "ctypes.string_at"),
    ],
    ids=["libc-system", "cdll-none", "pythonapi", "string_at"],
)
def test_ctypes_calls_into_libc_are_refused(
    level: str, limits: SandboxLimits, code: str, detail: str
) -> None:
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.FORBIDDEN
    assert res.detail == detail


def test_deleting_files_in_the_parents_directory_is_refused(
    level: str, limits: SandboxLimits, tmp_path: Path
) -> None:
    keep = tmp_path / "keep.txt"
    keep.write_text("precious")
    code = (
        "import os, shutil\n"
        f"for attempt in (lambda: os.remove({str(keep)!r}),\n"
        f"                lambda: os.rename({str(keep)!r}, {str(keep)!r} + '.moved'),\n"
        f"                lambda: shutil.rmtree({str(tmp_path)!r}),\n"
        f"                lambda: os.truncate({str(keep)!r}, 0)):\n"
        "    try:\n"
        "        attempt()\n"
        "    except Exception as exc:\n"
        "        print(type(exc).__name__)\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert keep.read_text() == "precious"
    if level == "bwrap":  # the host's /tmp is not there: the path names the private tmpfs
        assert res.outcome is Outcome.OK and "FileNotFoundError" in res.stdout
    else:
        assert res.outcome is Outcome.FORBIDDEN
        assert res.detail.startswith("os.remove ")


def test_killing_the_parent_is_refused(level: str, limits: SandboxLimits) -> None:
    code = (
        "import os, signal\n"
        f"for pid in (os.getppid(), {os.getpid()}):\n"
        "    for kill in (os.kill, os.killpg):\n"
        "        try:\n"
        "            kill(pid, signal.SIGKILL)\n"
        "        except Exception as exc:\n"
        "            print(type(exc).__name__)\n"
        "print(hasattr(os, 'pidfd_open'))\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.FORBIDDEN and res.detail == "os.kill"
    assert res.stdout.splitlines()[-1] == "False"
    assert os.getpid() > 0  # still here


def test_raising_rlimits_is_refused(level: str, limits: SandboxLimits) -> None:
    code = "import resource\nresource.setrlimit(resource.RLIMIT_AS, (-1, -1))\n"
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.FORBIDDEN and res.detail == "resource.setrlimit"
