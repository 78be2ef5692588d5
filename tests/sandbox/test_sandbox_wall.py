"""The wall alone: every attack class of issue 20 with the audit hook switched off.

The audit hook is a tripwire; these programs run without it (``audit_hook=False``) so
that what stops them is the kernel: bubblewrap's namespaces and minimal read-only
mounts, the private tmpfs, the unprivileged uid and the seccomp filter. Each program
prints ``ESCAPED ...`` when its attack works; each test also checks the host side (no
file, no connection, no process, the harness alive).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Iterable
from pathlib import Path

import pytest
from hookless import HOOK_OFF

from closurebench.sandbox import Outcome, SandboxLimits, run_python
from closurebench.sandbox.seccomp import ALLOWED, REQUIRED_DENIALS, STARTUP, ZYGOTE

LIMITS = SandboxLimits(cpu_seconds=5, wall_seconds=8, memory_bytes=512 * 2**20)


def _attack(code: str, **limits: float) -> tuple[Outcome, str, str]:
    lim = SandboxLimits(**{**LIMITS.to_dict(), **limits}) if limits else LIMITS
    res = run_python(code, limits=lim, isolation="bwrap", audit_hook=False)
    assert "ESCAPED" not in res.stdout, res
    return res.outcome, res.detail, res.stdout


@pytest.fixture(autouse=True)
def _needs_wall(wall: str) -> None:
    """Every test here runs behind the wall (skipped, or failed in CI, without it)."""


def _syscall_numbers(names: Iterable[str]) -> dict[str, int]:
    import pyseccomp

    out = {}
    for name in names:
        try:
            out[name] = pyseccomp.resolve_syscall(pyseccomp.system_arch(), name)
        except (ValueError, OSError):  # not a call of this architecture
            continue
    return {n: nr for n, nr in out.items() if nr >= 0}


def test_the_required_denials_are_in_no_allow_list() -> None:
    allowed = set(ALLOWED) | set(STARTUP) | set(ZYGOTE)
    assert not allowed & set(REQUIRED_DENIALS)
    assert {"ptrace", "process_vm_readv", "mount", "unshare", "setns", "keyctl"} <= set(
        REQUIRED_DENIALS
    )
    assert {"bpf", "userfaultfd", "io_uring_setup", "perf_event_open", "personality"} <= set(
        REQUIRED_DENIALS
    )
    assert {"kexec_load", "init_module", "socket"} <= set(REQUIRED_DENIALS)


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_every_denied_call_fails_with_eperm(warm: bool) -> None:
    """Each call of the issue's list, and the argument-checked ones, gets EPERM back.

    The program goes on after each refusal (nothing is killed): it reports every errno.
    Runs with the audit hook disabled from inside, as the attack did.
    """
    numbers = _syscall_numbers(n for n in REQUIRED_DENIALS if n != "vfork")
    code = HOOK_OFF + (
        "import ctypes, json, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "libc.syscall.restype = ctypes.c_long\n"
        "def call(nr, *args):\n"
        "    ctypes.set_errno(0)\n"
        "    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])\n"
        "    return 0 if r >= 0 else ctypes.get_errno()\n"
        f"seen = {{name: call(nr, 0, 0, 0, 0, 0) for name, nr in {numbers!r}.items()}}\n"
        "seen['prctl(PR_SET_DUMPABLE, 1)'] = 0 if libc.prctl(4, 1, 0, 0, 0) == 0 "
        "else ctypes.get_errno()\n"
        f"clone = {_syscall_numbers(['clone'])['clone']}\n"
        "seen['clone(CLONE_NEWUSER)'] = call(clone, 0x10000000 | 17, 0, 0, 0, 0)\n"
        "seen['clone(fork)'] = call(clone, 17, 0, 0, 0, 0)\n"
        "seen['ioctl(TIOCSTI)'] = call(16, 0, 0x5412, 0)\n"
        "seen['fcntl(F_SETOWN)'] = call(72, 1, 8, 1)\n"
        "seen['prlimit64(1)'] = call(302, 1, 7, 0, 0)\n"
        "seen['execve'] = call(59, 0, 0, 0)\n"
        "print(json.dumps(seen))\n"
    )
    res = run_python(code, limits=LIMITS, isolation="bwrap", warm=warm)
    assert res.outcome is Outcome.OK, res
    head, body = res.stdout.split("\n", 1)
    assert head == "HOOK-OFF"
    seen = json.loads(body)
    assert len(seen) >= len(numbers) + 7
    assert {name: e for name, e in seen.items() if e != errno.EPERM} == {}


def test_what_a_graph_program_needs_is_allowed() -> None:
    """Threads, files in the tmpfs, numpy, scipy and networkx work under the allow-list."""
    code = (
        "import threading, os, numpy as np, networkx as nx, scipy.sparse.csgraph as cg\n"
        "from concurrent.futures import ThreadPoolExecutor\n"
        "G = nx.gnp_random_graph(40, 0.2, seed=1)\n"
        "d = cg.shortest_path(nx.to_scipy_sparse_array(G))\n"
        "with ThreadPoolExecutor(2) as ex:\n"
        "    assert list(ex.map(abs, [-1, -2])) == [1, 2]\n"
        "os.mkdir('d'); open('d/f', 'w').write('x'); os.rename('d/f', 'd/g')\n"
        "import shutil; shutil.copy2('d/g', 'd/h'); shutil.rmtree('d')\n"
        "print(int(np.isfinite(d).sum()), len(nx.bfs_tree(G, 0)))\n"
    )
    res = run_python(code, limits=LIMITS, isolation="bwrap", audit_hook=False)
    assert res.outcome is Outcome.OK, res
    assert len(res.stdout.split()) == 2


def test_threads_still_work() -> None:
    code = (
        "import threading\nout = []\n"
        "ts = [threading.Thread(target=out.append, args=(i,)) for i in range(4)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\nprint(sorted(out))\n"
    )
    outcome, _, stdout = _attack(code)
    assert outcome is Outcome.OK and stdout.strip() == "[0, 1, 2, 3]"


def test_the_host_disk_is_not_there(tmp_path: Path) -> None:
    """The dataset, the run folder, the host's /tmp, /home and /root are not mounted."""
    secret = tmp_path / f"closure-test-{uuid.uuid4().hex}.jsonl"
    secret.write_text('{"answer": 42}\n')
    code = (
        "import os\n"
        "hits = []\n"
        "for root, dirs, files in os.walk('/'):\n"
        "    if root.startswith('/proc'):\n"
        "        dirs[:] = []\n"
        "        continue\n"
        "    hits += [os.path.join(root, f) for f in files\n"
        f"             if f.endswith(('.jsonl', 'run.json')) or f == {secret.name!r}]\n"
        "if hits:\n"
        "    print('ESCAPED', hits[:5])\n"
        f"print(os.path.exists({str(secret)!r}), sorted(os.listdir('/')))\n"
    )
    # Walking every mounted file takes 2-4 s alone; under a loaded suite the 5 s caps
    # can cut it (a timeout, not an escape): this test checks what is visible, so it
    # gets room to finish.
    outcome, _, stdout = _attack(code, cpu_seconds=30, wall_seconds=60)
    assert outcome is Outcome.OK
    exists, listing = stdout.split(" ", 1)
    assert exists == "False"
    for host_dir in ("home", "work", "srv", "mnt", "media", "var", "run"):
        assert f"'{host_dir}'" not in listing


def test_nothing_written_reaches_the_host(tmp_path: Path) -> None:
    marker = f"closurebench-escape-{uuid.uuid4().hex}"
    code = (
        "import os, sqlite3\n"
        f"for path in ('/tmp/{marker}', '/{marker}', '/etc/{marker}', '/opt/{marker}',\n"
        f"             '/dev/shm/{marker}', '/root/{marker}', {str(tmp_path / marker)!r}):\n"
        "    try:\n"
        "        with open(path, 'w') as f:\n"
        "            f.write('x')\n"
        "        print('wrote', path)\n"
        "    except OSError as exc:\n"
        "        print('refused', path, exc.errno)\n"
        "fd = os.open('/', os.O_RDONLY)\n"
        "try:\n"
        f"    os.open('{marker}', os.O_CREAT | os.O_WRONLY, dir_fd=fd)\n"
        "    print('ESCAPED dir_fd')\n"
        "except OSError:\n"
        "    pass\n"
        f"db = sqlite3.connect('/tmp/{marker}.db')\n"
        "db.execute('create table t (x)')\n"
        "db.commit()\n"
    )
    outcome, _, stdout = _attack(code)
    assert outcome is Outcome.OK
    assert stdout.count("wrote") == 1 and f"wrote /tmp/{marker}" in stdout  # the tmpfs
    for host in (Path("/tmp") / marker, Path("/tmp") / f"{marker}.db", Path("/") / marker):
        assert not host.exists()
    assert not (tmp_path / marker).exists()
    assert not (Path("/dev/shm") / marker).exists()


def test_only_the_private_home_is_writable() -> None:
    """Every directory the sandbox sees refuses a new file, but the capped home.

    (An uncapped writable tmpfs anywhere — the root, a hidden site-packages — would let a
    program fill the host's memory.)
    """
    code = (
        "import os\n"
        "writable = []\n"
        "for root, dirs, files in os.walk('/'):\n"
        "    if root.startswith(('/proc', '/sandbox')):\n"
        "        dirs[:] = []\n"
        "        continue\n"
        "    try:\n"
        "        fd = os.open(os.path.join(root, '.probe'), os.O_CREAT | os.O_WRONLY, 0o600)\n"
        "    except OSError:\n"
        "        continue\n"
        "    os.close(fd)\n"
        "    writable.append(root)\n"
        "print(writable)\n"
    )
    res = run_python(
        code, limits=SandboxLimits(wall_seconds=30, cpu_seconds=30), isolation="bwrap",
        audit_hook=False,
    )  # fmt: skip
    assert res.outcome is Outcome.OK, res
    assert eval(res.stdout) == []  # /tmp is a link to /sandbox, skipped with it


def test_the_private_tmpfs_is_size_capped() -> None:
    code = (
        "chunk = b'x' * 2**20\nn = 0\n"
        "try:\n"
        "    for i in range(1000):\n"
        "        with open(f'/tmp/f{i}', 'wb') as f:\n"
        "            f.write(chunk)\n"
        "        n += 1\n"
        "except OSError as exc:\n"
        "    print(n, exc.errno)\n"
    )
    res = run_python(
        code,
        limits=SandboxLimits(tmpfs_bytes=8 * 2**20, wall_seconds=8),
        isolation="bwrap",
        audit_hook=False,
    )
    written, errno_ = res.stdout.split()
    assert int(written) <= 8 and errno_ == "28"  # ENOSPC


def test_secrets_of_the_harness_are_out_of_reach(monkeypatch: pytest.MonkeyPatch) -> None:
    secret = f"sk-closurebench-{uuid.uuid4().hex}"
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    code = (
        "import os\n"
        "seen = [str(dict(os.environ))]\n"
        "for pid in os.listdir('/proc'):\n"
        "    if pid.isdigit():\n"
        "        for name in ('environ', 'cmdline'):\n"
        "            try:\n"
        "                seen.append(repr(open(f'/proc/{pid}/{name}', 'rb').read()))\n"
        "            except OSError:\n"
        "                pass\n"
        "blob = ' '.join(seen)\n"
        "if 'sk-closurebench' in blob:\n"
        "    print('ESCAPED secret')\n"
        "print(sorted(p for p in os.listdir('/proc') if p.isdigit()))\n"
    )
    outcome, _, stdout = _attack(code)
    assert outcome is Outcome.OK
    assert secret not in stdout
    pids = eval(stdout.strip())  # only the sandbox's own processes
    assert len(pids) <= 3 and "1" in pids


def test_host_sockets_are_unreachable(tmp_path: Path) -> None:
    path = tmp_path / "host.sock"
    abstract = f"\0closurebench-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX) as unix, socket.socket(socket.AF_UNIX) as hidden:
        unix.bind(str(path))
        unix.listen()
        hidden.bind(abstract)
        hidden.listen()
        code = (
            "import socket\n"
            f"for target in ({str(path)!r}, {abstract!r}):\n"
            "    try:\n"
            "        s = socket.socket(socket.AF_UNIX)\n"
            "        s.connect(target)\n"
            "        print('ESCAPED unix', repr(target))\n"
            "    except OSError as exc:\n"
            "        print('refused', exc.errno)\n"
        )
        outcome, _, stdout = _attack(code)
        assert outcome is Outcome.OK and stdout.count("refused") == 2
        for listener in (unix, hidden):
            listener.setblocking(False)
            with pytest.raises(BlockingIOError):
                listener.accept()


def test_killing_everything_it_sees_kills_only_the_sandbox() -> None:
    code = (
        "import os, signal\n"
        "for pid in (-1, 1, os.getppid()):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError as exc:\n"
        "        print('refused', pid, exc.errno)\n"
        "print('alive')\n"
    )
    res = run_python(code, limits=LIMITS, isolation="bwrap", audit_hook=False)
    assert "ESCAPED" not in res.stdout
    assert os.getpid() > 0
    os.kill(os.getpid(), 0)  # the harness lives (signal 0 raises for a process that is gone)


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.usefixtures("no_idle_zygotes")
def test_no_process_outlives_the_sandbox(warm: bool) -> None:
    marker = uuid.uuid4().hex
    code = (
        "import threading, time\n"
        f"name = 'closurebench-daemon-{marker}'\n"
        "def spin():\n"
        "    while True:\n"
        "        time.sleep(0.01)\n"
        "threading.Thread(target=spin, name=name, daemon=False).start()\n"
        "print('started')\n"
        "time.sleep(30)\n"
    )
    res = run_python(
        code,
        limits=SandboxLimits(wall_seconds=1.5, cpu_seconds=5),
        isolation="bwrap",
        audit_hook=False,
        warm=warm,
    )
    assert res.outcome is Outcome.TIMEOUT and res.detail == "wall"  # not the program's sleep
    time.sleep(0.3)
    ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False)
    left = [line[:300] for line in ps.stdout.splitlines() if "bootstrap.py" in line]
    if warm:  # the zygote was killed at the deadline: neither it nor its child is left
        left += [line[:300] for line in ps.stdout.splitlines() if "zygote.py" in line]
    assert left == []


def test_memory_cap_holds_for_the_whole_sandbox() -> None:
    """One process (no fork), threads share its address space: the cap is the sandbox's."""
    code = (
        "import threading\nheld = []\n"
        "def grab():\n"
        "    try:\n"
        "        while True:\n"
        "            held.append(bytearray(32 * 2**20))\n"
        "    except MemoryError:\n"
        "        pass\n"
        "ts = [threading.Thread(target=grab) for _ in range(2)]\n"
        "[t.start() for t in ts]; [t.join() for t in ts]\n"
        "print(sum(len(b) for b in held) // 2**20)\n"
    )
    res = run_python(
        code,
        limits=SandboxLimits(memory_bytes=384 * 2**20, wall_seconds=10),
        isolation="bwrap",
        audit_hook=False,
    )
    # Threads reserve address space too: a thread that cannot start is a limit as well.
    assert res.outcome in (Outcome.OK, Outcome.MEMORY_LIMIT, Outcome.RUNTIME_ERROR), res
    if res.outcome is Outcome.OK:
        assert int(res.stdout) < 384


def test_forging_the_report_channel_cannot_improve_the_outcome() -> None:
    """The program can write on the report descriptor: at worst it spoils its own run."""
    code = (
        "import os\n"
        "for fd in range(3, 64):\n"
        "    try:\n"
        '        os.write(fd, b\'{"done": 0}\\n{"wall_error": "forged"}\\nnot json\\n\')\n'
        "    except OSError:\n"
        "        pass\n"
        "print(42)\n"
    )
    res = run_python(code, limits=LIMITS, isolation="bwrap", audit_hook=False)
    # A forged wall error is not trusted (it came after the program started); the
    # garbled channel makes the run an execution error, never a hidden refusal.
    assert res.outcome is Outcome.RUNTIME_ERROR and "report channel" in res.detail


@pytest.mark.parametrize("warm", ["0", "1"], ids=["cold", "warm"])
@pytest.mark.usefixtures("no_idle_zygotes")
def test_a_sigkilled_harness_leaves_nothing_behind(tmp_path: Path, warm: str) -> None:
    """Kill the harness mid-program: the sandbox dies with it, no temp folder is left."""
    before = {p.name for p in Path("/tmp").iterdir() if p.name.startswith("closurebench-")}
    script = tmp_path / "harness.py"
    script.write_text(
        "from closurebench.sandbox import run_python, SandboxLimits\n"
        "run_python('import time\\nprint(\"up\", flush=True)\\ntime.sleep(60)',\n"
        "           limits=SandboxLimits(wall_seconds=60, cpu_seconds=60), isolation='bwrap')\n"
    )
    env = {**os.environ, "CLOSUREBENCH_SANDBOX_WARM": warm}
    proc = subprocess.Popen([sys.executable, str(script)], start_new_session=True, env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:  # wait for the sandboxed program to start
        ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False)
        if "bootstrap.py" in ps.stdout or ps.stdout.count("zygote.py") >= 2:  # warm: a child
            break
        time.sleep(0.1)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        ps = subprocess.run(["ps", "-eo", "pid,args"], capture_output=True, text=True, check=False)
        if "bootstrap.py" not in ps.stdout and "zygote.py" not in ps.stdout:
            break
        time.sleep(0.1)
    assert "bootstrap.py" not in ps.stdout and "zygote.py" not in ps.stdout, ps.stdout
    after = {p.name for p in Path("/tmp").iterdir() if p.name.startswith("closurebench-")}
    assert after <= before


def _ppid(pid: int) -> int:
    return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])


def _is_sandboxed(pid: int) -> bool:
    try:
        cmd = Path(f"/proc/{pid}/cmdline").read_bytes()
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    uid = f"Uid:\t{os.getuid() if os.getuid() else 65534}\t"
    return (b"bootstrap.py" in cmd or b"zygote.py" in cmd) and uid in status


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
@pytest.mark.usefixtures("no_idle_zygotes")
def test_the_program_dies_with_bubblewrap(warm: bool) -> None:
    """bubblewrap's outer process SIGKILLed (as when the harness dies): the program
    behind it dies too, also after its drop to another uid (which clears the
    parent-death signal bubblewrap set, and leaves bubblewrap no right to signal it)."""
    import threading

    limits = SandboxLimits(wall_seconds=60, cpu_seconds=60)
    if warm:  # an idle zygote first, so that the process found below is the program's
        assert run_python("print(1)", limits=limits, isolation="bwrap", warm=True).ok
    done = threading.Event()
    earlier = {int(e.name) for e in Path("/proc").iterdir() if e.name.isdigit()}

    def run() -> None:
        run_python("import time\ntime.sleep(60)\n", limits=limits, isolation="bwrap",
                   audit_hook=False, warm=warm)  # fmt: skip
        done.set()

    threading.Thread(target=run, daemon=True).start()
    program = None
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and program is None:
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or (pid := int(entry.name)) in earlier:
                continue
            if _is_sandboxed(pid):
                with contextlib.suppress(OSError):  # warm: the zygote's child
                    if not warm or _is_sandboxed(_ppid(pid)):
                        program = pid
        time.sleep(0.05)
    assert program is not None, "the sandboxed program did not start"
    chain, pid = [], program
    while pid > 1:
        chain.append(pid)
        pid = _ppid(pid)
    outer = [p for p in chain if b"bwrap" in Path(f"/proc/{p}/cmdline").read_bytes()]
    assert outer, chain
    os.kill(outer[-1], signal.SIGKILL)  # bubblewrap's topmost process
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and _is_sandboxed(program):
        time.sleep(0.05)
    assert not _is_sandboxed(program), f"the program {program} outlived bubblewrap"
    assert done.wait(30)  # and the harness saw it end
