"""What a program sees behind the wall, listed from inside and asserted exactly.

A probe program (``probe_program.py``) runs cold and warm with the audit hook switched
off from inside first (``hookless.HOOK_OFF``, the issue's numpy-view attack), so only
the kernel wall answers. It runs with the harness as this process (root in CI) and,
where this process is root, once more with the harness as an ordinary user (uid 65534,
no capabilities, started through ``setpriv`` in a private mount namespace that only
makes the interpreter's directory traversable for that user).

Then the classes the issue names are attacked with the hook off: the ``core_pattern``
escape (``PR_SET_DUMPABLE``, a sysctl write, a crash) and a program that tries to
influence the next program of the same zygote pool.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hookless import HOOK_OFF
from probe_program import probe_source

from closurebench.sandbox import Outcome, SandboxLimits, run_python
from closurebench.sandbox import isolation as iso

LIMITS = SandboxLimits(cpu_seconds=60, wall_seconds=90, memory_bytes=768 * 2**20)
#: null, zero, full, random, urandom: the sinks and sources a program may write.
SINK_DEVICES = {(1, 3), (1, 5), (1, 7), (1, 8), (1, 9)}


@pytest.fixture(autouse=True)
def _needs_wall(wall: str) -> None:
    """Every test here runs behind the wall (skipped, or failed in CI, without it)."""


def _runtime() -> list[str]:
    """The read-only trees the sandbox is meant to show (paths as they appear inside)."""
    paths = [p for p in iso._SYSTEM_LIBS if os.path.isdir(p) and not os.path.islink(p)]
    paths += [p for p in iso._SYSTEM_DIRS if os.path.lexists(p)]  # links into /usr
    paths += ["/etc/ld.so.cache", iso.INSIDE_ROOT]
    for prefix in {os.path.realpath(sys.base_prefix), os.path.realpath(sys.base_exec_prefix)}:
        if prefix not in ("/", "/usr"):
            paths.append(prefix)
    return sorted(set(paths))


def _probe(warm: bool) -> dict[str, Any]:
    res = run_python(
        HOOK_OFF + probe_source(_runtime()), limits=LIMITS, isolation="bwrap", warm=warm
    )
    assert res.outcome is Outcome.OK, res
    head, body = res.stdout.split("\n", 1)
    assert head == "HOOK-OFF"  # the audit hook really was off
    return dict(json.loads(body))


def _check(seen: dict[str, Any], *, warm: bool, root: bool) -> None:
    """The exact lists a program behind the wall must see, whoever the harness is.

    Its pid namespace holds the program and, warm, its zygote (the namespace's init);
    cold behind a root harness, bubblewrap's own init (uid 0: the program can neither
    signal, trace nor read it; the probe's other checks cover that) is its parent.
    """
    assert seen["uid"] == [iso.SANDBOX_UID] * 4 and seen["gid"] == [iso.SANDBOX_GID] * 4
    assert set(seen["groups"]) <= {iso.SANDBOX_GID}
    assert seen["caps"] == dict.fromkeys(("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"), 0)
    assert seen["no_new_privs"] == 1 and seen["seccomp"] == 2
    assert seen["writable"] == []  # nothing but the scratch tmpfs...
    assert seen["scratch_writable"] is True  # ...which is
    for path, major, minor in seen["sinks"]:
        assert (major, minor) in SINK_DEVICES, path
        assert path.startswith("/dev/") or (path.startswith("/proc/") and (major, minor) == (1, 3))
    assert {p for p, _, _ in seen["sinks"] if p.startswith("/dev/")} <= {
        f"/dev/{name}" for name in iso.DEVICES
    }
    assert seen["outside"] == []  # nothing readable beyond the bound runtime
    assert seen["sysctl_entries"] == 0 and seen["sysctl_writable"] == []
    assert seen["other_processes_writable"] == [] and seen["attr_written"] == []
    assert seen["sockets"] == [] and seen["interfaces"] == ["lo"]
    assert len(seen["pids"]) == (2 if warm or root else 1)


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_the_probe_sees_only_the_wall(warm: bool) -> None:
    _check(_probe(warm), warm=warm, root=os.getuid() == 0)


_USER_HARNESS = """\
import json, sys
sys.path[:0] = [{here!r}]
from hookless import HOOK_OFF
from probe_program import probe_source
from closurebench.sandbox import SandboxLimits, run_python
limits = SandboxLimits(cpu_seconds=60, wall_seconds=90, memory_bytes=768 * 2**20)
out = {{}}
for warm in (False, True):
    res = run_python(HOOK_OFF + probe_source({runtime!r}), limits=limits, isolation="bwrap",
                     warm=warm)
    out[str(warm)] = [res.outcome.value, res.stdout, res.stderr[-2000:]]
print(json.dumps(out))
"""


def _user_command(script: Path, keep: Path) -> list[str]:
    """``script`` run by the venv's interpreter as uid/gid 65534 with no capabilities.

    The only change, in a private mount namespace of that process alone: a directory on
    the way to the interpreter that others may not enter (pyenv's ``/root``) is covered
    by a tmpfs holding just the path to it (``keep``, an empty directory, holds the
    real one meanwhile).
    """
    prefix = Path(os.path.realpath(sys.base_prefix))
    setup = []
    for depth in range(1, len(prefix.parts)):
        closed = Path(*prefix.parts[: depth + 1])
        if not os.stat(closed).st_mode & 0o001:
            child = prefix.parts[depth + 1]
            setup += [
                f"mount --bind {closed} {keep}",
                f"mount -t tmpfs -o mode=0755 tmpfs {closed}",
                f"mkdir -p {closed / child}",
                f"mount --bind {keep}/{child} {closed / child}",
            ]
            break
    drop = (
        "exec setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "
        f"--bounding-set=-all -- {sys.executable} -I {script}"
    )
    shell = " && ".join([*setup, drop])
    return ["unshare", "--mount", "--propagation", "private", "sh", "-c", shell]


def _run_as_user(script_for: Callable[[Path], str], copies: tuple[str, ...] = ()) -> dict[str, Any]:
    """Run a harness script as uid 65534 (:func:`_user_command`); its last line, as JSON.

    ``script_for``: the script's text, given the folder it runs in; ``copies``: files
    beside this test that it imports (copied into that folder).
    """
    if shutil.which("setpriv") is None or shutil.which("unshare") is None:
        pytest.skip("util-linux's setpriv and unshare are needed to start a user harness")
    # Under /tmp itself: pytest's own temporary tree is closed to other users.
    work = Path(tempfile.mkdtemp(prefix="closurebench-user-", dir="/tmp"))
    keep = Path(tempfile.mkdtemp(prefix="closurebench-keep-", dir="/tmp"))
    try:
        work.chmod(0o755)
        for name in copies:
            shutil.copy(Path(__file__).parent / name, work / name)
        script = work / "harness.py"
        script.write_text(script_for(work))
        src = Path(iso.__file__).resolve().parents[2]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(work)}
        env["PYTHONPATH"] = str(src)
        env["TMPDIR"] = "/tmp"
        res = subprocess.run(
            _user_command(script, keep), capture_output=True, text=True, env=env, timeout=300,
            cwd=str(work), check=False,
        )  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)
        keep.rmdir()
    assert res.returncode == 0, res.stderr[-3000:]
    return dict(json.loads(res.stdout.strip().splitlines()[-1]))


@pytest.mark.skipif(os.geteuid() != 0, reason="the harness is an ordinary user already")
def test_the_probe_with_the_harness_as_an_ordinary_user() -> None:
    runtime = _runtime()
    runs = _run_as_user(
        lambda work: _USER_HARNESS.format(here=str(work), runtime=runtime),
        ("hookless.py", "probe_program.py"),
    )
    for warm, (outcome, stdout, stderr) in runs.items():
        assert outcome == "ok", stderr
        head, body = stdout.split("\n", 1)
        assert head == "HOOK-OFF"
        _check(json.loads(body), warm=warm == "True", root=False)


_USER_DIES = """\
import json, os, signal, sys, threading, time
from pathlib import Path
from closurebench.sandbox import SandboxLimits, run_python
limits = SandboxLimits(cpu_seconds=60, wall_seconds=60, memory_bytes=768 * 2**20)


def ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def mine(pid: int) -> bool:
    try:
        while pid > 1:
            pid = ppid(pid)
            if pid == os.getpid():
                return True
    except (OSError, ValueError):
        pass
    return False


def sandboxed(pids=None) -> list[int]:
    out = []
    for e in Path("/proc").iterdir():
        try:
            cmd = (e / "cmdline").read_bytes()
        except OSError:
            continue
        if e.name.isdigit() and (b"bootstrap.py" in cmd or b"zygote.py" in cmd):
            pid = int(e.name)
            if (pid in pids) if pids is not None else mine(pid):
                out.append(pid)
    return out


def bwraps() -> list[int]:
    me, out = os.getpid(), []
    for e in Path("/proc").iterdir():
        try:
            stat = (e / "stat").read_text()
            cmd = (e / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if e.name.isdigit() and cmd.startswith(b"bwrap") and parent == me:
            out.append(int(e.name))
    return out


result = {}
for warm in (False, True):
    if warm:
        run_python("print(1)", limits=limits, isolation="bwrap", warm=True)
    before = set(sandboxed())
    done = threading.Event()
    threading.Thread(target=lambda: (run_python("import time\\ntime.sleep(60)\\n",
        limits=limits, isolation="bwrap", audit_hook=False, warm=warm), done.set()),
        daemon=True).start()
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and len(set(sandboxed()) - before) < 1:
        time.sleep(0.05)
    time.sleep(0.5)
    started = sorted(set(sandboxed()))
    for pid in bwraps():
        os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and sandboxed(set(started)):
        time.sleep(0.05)
    left = sandboxed(set(started))
    result[str(warm)] = {"started": started, "left": left, "returned": done.wait(30)}
print(json.dumps(result))
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="the harness is an ordinary user already")
def test_an_ordinary_harness_s_program_dies_with_bubblewrap() -> None:
    """bubblewrap's outer process SIGKILLed under a harness of uid 65534 (a user
    namespace): the program (cold) or the zygote and its child (warm) die with it."""
    runs = _run_as_user(lambda _work: _USER_DIES)
    for warm, seen in runs.items():
        assert seen["started"], (warm, seen)
        assert seen["left"] == [], (warm, seen)
        assert seen["returned"], (warm, seen)


def _core_pattern() -> str:
    return Path("/proc/sys/kernel/core_pattern").read_text()


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_the_core_pattern_escape_is_blocked(warm: bool) -> None:
    """The issue's attack, step by step, with the hook off: nothing of it lands."""
    before = _core_pattern()
    marker = Path("/tmp") / f"closurebench-root-{uuid.uuid4().hex}"
    code = HOOK_OFF + (
        "import ctypes, faulthandler\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "print('dumpable', libc.prctl(4, 1, 0, 0, 0), ctypes.get_errno(), flush=True)\n"
        "for path in ('/proc/sys/kernel/core_pattern', '/proc/sys/kernel/modprobe'):\n"
        "    try:\n"
        "        with open(path, 'w') as f:\n"
        f"            f.write('|/bin/sh -c \"touch {marker}\"')\n"
        "        print('ESCAPED', path, flush=True)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.errno, flush=True)\n"
        "faulthandler._read_null()\n"
    )
    try:
        res = run_python(code, limits=SandboxLimits(wall_seconds=20), isolation="bwrap", warm=warm)
    finally:
        if _core_pattern() != before:  # never leave the host changed, even on failure
            Path("/proc/sys/kernel/core_pattern").write_text(before)
    assert "ESCAPED" not in res.stdout, res
    assert res.stdout.startswith("HOOK-OFF\ndumpable -1 1\n"), res.stdout  # EPERM
    assert res.stdout.count("refused") == 2
    assert res.outcome in (Outcome.RUNTIME_ERROR, Outcome.FORBIDDEN), res  # the crash
    assert _core_pattern() == before
    assert not marker.exists()


def test_a_program_cannot_influence_the_next_one_in_its_pool() -> None:
    """A patches builtins and networkx, plants files, leaves a thread, tries a child and
    changes its environment, then ends cleanly (its zygote is reused); B, served by the
    same pool, sees none of it."""
    from closurebench.sandbox.warm import shutdown_zygotes

    shutdown_zygotes()  # one pool, started here
    plant = HOOK_OFF + (
        "import builtins, os, sys, threading, time, networkx as nx, numpy as np\n"
        "os.environ['CLOSUREBENCH_PLANTED'] = '1'\n"
        "np.random.seed(7)\n"
        "for path in ('/sandbox/planted', '/tmp/planted.py', '/sandbox/.hidden/x'):\n"
        "    os.makedirs(os.path.dirname(path), exist_ok=True)\n"
        "    open(path, 'w').write('planted')\n"
        "os.chmod('/sandbox/.hidden', 0)\n"
        "threading.Thread(target=time.sleep, args=(60,), daemon=False).start()\n"
        "try:\n"
        "    os.fork()\n"
        "except OSError:\n"
        "    pass\n"
        "sys.stdout.write('planted\\n')\n"
        "sys.stdout.flush()\n"
        "nx.shortest_path_length = lambda *a, **k: -1\n"
        "nx.Graph.add_edge = lambda *a, **k: None\n"
        "sys.modules['json'] = None\n"
        "builtins.print = lambda *a, **k: None\n"
        "builtins.len = lambda x: 42\n"
    )
    first = run_python(plant, limits=SandboxLimits(wall_seconds=20), isolation="bwrap", warm=True)
    assert first.outcome is Outcome.OK and first.stdout.endswith("planted\n"), first
    look = (
        "import json, os, sys, networkx as nx, numpy as np\n"
        "G = nx.path_graph(4)\n"
        "print(json.dumps({'len': len([1, 2]), 'sp': nx.shortest_path_length(G, 0, 3),\n"
        "    'edges': G.number_of_edges(), 'files': sorted(os.listdir('/sandbox')),\n"
        "    'env': os.environ.get('CLOSUREBENCH_PLANTED'), 'threads': len(os.listdir(\n"
        "    '/proc/self/task')), 'pids': sorted(p for p in os.listdir('/proc') if p.isdigit()),\n"
        "    'seeded': int(np.random.randint(1 << 30))\n"
        "    == int(np.random.RandomState(7).randint(1 << 30))}))\n"
    )
    for _ in range(3):  # whichever idle zygote serves it
        res = run_python(look, limits=SandboxLimits(wall_seconds=20), isolation="bwrap", warm=True)
        assert res.outcome is Outcome.OK, res
        seen = json.loads(res.stdout)
        assert seen["len"] == 2 and seen["sp"] == 3 and seen["edges"] == 3
        assert seen["files"] == ["program.py"] and seen["env"] is None
        assert seen["threads"] == 1 and len(seen["pids"]) == 2
