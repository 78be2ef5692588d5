"""The sandbox's attack suite per isolation level: succeeded / partial / blocked.

Run: ``uv run python benchmarks/bench_sandbox_attacks.py [--json OUT]``.

Every attack runs at each level that runs programs here (``bwrap`` cold and warm, and
the unsafe ``none`` cold and warm, the ``--unsafe-no-sandbox`` choice), once with the
audit hook as shipped and once with it switched off from inside first (the numpy-view
attack of ``tests/sandbox/hookless.py``). Each attack program reports the steps it got
through; the harness side checks what landed (the host's ``core_pattern``, a marker file
outside, a loopback listener, a signal handler, a process left behind).

* **succeeded** — the goal landed (a sysctl written, the answer key read, a file
  written outside, a connection made, the harness signalled, a process outliving the
  program, privilege held, the next program influenced);
* **partial** — an intermediate step worked but the goal did not land (e.g. the
  program made itself dumpable but could not write the sysctl);
* **blocked** — no step worked.

The host's ``core_pattern`` is restored if any attack changed it.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "sandbox"))

from hookless import HOOK_OFF

from closurebench.sandbox import SandboxLimits, available_isolations, run_python
from closurebench.sandbox.warm import shutdown_zygotes

CORE = Path("/proc/sys/kernel/core_pattern")
LIMITS = SandboxLimits(cpu_seconds=20, wall_seconds=20, memory_bytes=768 * 2**20)

#: name -> program template (``{ctx}`` fields); each prints one JSON line of its steps.
ATTACKS: dict[str, str] = {
    "core_pattern": """
import ctypes, json, faulthandler
libc = ctypes.CDLL(None, use_errno=True)
steps = {{"dumpable": libc.prctl(4, 1, 0, 0, 0) == 0}}
try:
    with open("/proc/sys/kernel/core_pattern", "w") as f:
        f.write("|/bin/sh -c 'touch {marker}'")
    steps["sysctl"] = True
except OSError:
    steps["sysctl"] = False
print(json.dumps(steps), flush=True)
faulthandler._read_null()
""",
    "answer_key": """
import json, os
steps = {{"listed": False, "read": False}}
try:
    steps["listed"] = "data.jsonl" in os.listdir({datadir!r})
except OSError:
    pass
try:
    steps["read"] = "SECRET-ANSWER" in open({data!r}).read()
except OSError:
    pass
print(json.dumps(steps))
""",
    "run_folder_write": """
import json
steps = {{}}
for key, path in (("results", {results!r}), ("outside", {outside!r})):
    try:
        with open(path, "a") as f:
            f.write("forged")
        steps[key] = True
    except OSError:
        steps[key] = False
print(json.dumps(steps))
""",
    "network": """
import json, socket
steps = {{"socket": False, "connect": False}}
try:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    steps["socket"] = True
    s.settimeout(2)
    s.connect(("127.0.0.1", {port}))
    s.sendall(b"{marker}")
    steps["connect"] = True
except OSError:
    pass
print(json.dumps(steps))
""",
    "signal_harness": """
import json, os, signal
steps = {{"signal": False}}
try:
    os.kill({pid}, signal.SIGUSR1)
    steps["signal"] = True
except OSError:
    pass
print(json.dumps(steps))
""",
    "harness_memory": """
import json
steps = {{"environ": False, "mem": False}}
try:
    steps["environ"] = b"{secret}" in open("/proc/{pid}/environ", "rb").read()
except OSError:
    pass
try:
    open("/proc/{pid}/mem", "rb").read(1)
    steps["mem"] = True
except OSError:
    pass
print(json.dumps(steps))
""",
    "survivor": """
import ctypes, json, os
steps = {{"fork": False, "spawn": False}}
try:
    if os.fork() == 0:
        import time
        time.sleep(3)
        open({survivor!r}, "w").close()
        os._exit(0)
    steps["fork"] = True
except OSError:
    pass
try:
    os.posix_spawn("/bin/sh", ["sh", "-c", "sleep 3; touch {survivor}"], {{}})
    steps["spawn"] = True
except OSError:
    pass
print(json.dumps(steps))
""",
    "privilege": """
import json, os
st = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
caps = any(int(st[k].strip(), 16) for k in ("CapPrm", "CapEff", "CapBnd", "CapAmb"))
steps = {{"root": os.geteuid() == 0 or os.getuid() == 0, "caps": caps}}
try:
    os.setuid(0)
    steps["setuid"] = True
except OSError:
    steps["setuid"] = False
print(json.dumps(steps))
""",
    "pool_influence": """
import builtins, json, os
open("planted", "w").write("x")
builtins.sorted = lambda *a, **k: ["PLANTED"]
os.environ["CLOSUREBENCH_PLANTED"] = "1"
print(json.dumps({{"planted": True}}))
""",
}
#: The step that is the attack's goal (the others are intermediate).
GOALS = {
    "core_pattern": ("sysctl",),
    "answer_key": ("read",),
    "run_folder_write": ("results", "outside"),
    "network": ("connect",),
    "signal_harness": ("signal",),
    "harness_memory": ("environ", "mem"),
    "survivor": (),  # judged on the host: a process or the marker after the program
    "privilege": ("root", "caps", "setuid"),
    "pool_influence": (),  # judged by the next program of the same pool
}
LOOK = (
    "import builtins, json, os\n"
    "print(json.dumps({'files': os.listdir('.'), 'env': os.environ.get('CLOSUREBENCH_PLANTED'),"
    " 'sorted': sorted([2, 1])}))\n"
)


class _Host:
    """What the attacks aim at, on the harness side."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.datadir = root / "data"
        self.datadir.mkdir()
        (self.datadir / "data.jsonl").write_text('{"answer": "SECRET-ANSWER"}\n')
        self.run = root / "run"
        self.run.mkdir()
        (self.run / "results.jsonl").write_text("")
        self.secret = f"sk-{uuid.uuid4().hex}"
        os.environ["CLOSUREBENCH_BENCH_SECRET"] = self.secret
        self.signals = 0
        signal.signal(signal.SIGUSR1, self._on_signal)
        self.listener = socket.socket()
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(8)
        self.connections = 0
        threading.Thread(target=self._accept, daemon=True).start()

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.signals += 1

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1
            conn.close()

    def context(self) -> dict[str, Any]:
        tag = uuid.uuid4().hex
        return {
            "marker": str(self.root / f"core-{tag}"),
            "datadir": str(self.datadir),
            "data": str(self.datadir / "data.jsonl"),
            "results": str(self.run / "results.jsonl"),
            "outside": str(self.root / f"outside-{tag}"),
            "port": self.listener.getsockname()[1],
            "pid": os.getpid(),
            "secret": self.secret,
            "survivor": str(self.root / f"survivor-{tag}"),
        }


def _steps(stdout: str) -> dict[str, bool]:
    for line in reversed(stdout.splitlines()):
        if line.startswith("{"):
            try:
                return {k: bool(v) for k, v in json.loads(line).items()}
            except ValueError:
                break
    return {}


def _verdict(name: str, steps: dict[str, bool], landed: bool) -> str:
    goals = GOALS[name]
    if landed or any(steps.get(g) for g in goals):
        return "succeeded"
    if any(v for k, v in steps.items() if k not in goals):
        return "partial"
    return "blocked"


def attack(host: _Host, name: str, level: str, warm: bool, hook_off: bool) -> dict[str, Any]:
    """Run one attack; its verdict, steps and the sandbox's outcome."""
    ctx = host.context()
    code = (HOOK_OFF if hook_off else "") + ATTACKS[name].format(**ctx)
    before = CORE.read_text() if CORE.exists() else ""
    signals, connections = host.signals, host.connections
    results_before = (host.run / "results.jsonl").read_text()
    res = run_python(code, limits=LIMITS, isolation=level, warm=warm)
    landed = False
    if CORE.exists() and CORE.read_text() != before:
        CORE.write_text(before)  # never leave the host changed
        landed = True
    steps = _steps(res.stdout)
    if name == "survivor":
        time.sleep(3.5)
        landed = Path(ctx["survivor"]).exists()
    if name == "network":
        time.sleep(0.2)
        landed = host.connections > connections
    if name == "signal_harness":
        landed = host.signals > signals
    if name == "run_folder_write":
        forged = (host.run / "results.jsonl").read_text() != results_before
        landed = Path(ctx["outside"]).exists() or forged
    if name == "pool_influence" and warm:
        looks = [run_python(LOOK, limits=LIMITS, isolation=level, warm=True) for _ in range(3)]
        for look in looks:
            seen = json.loads(look.stdout) if look.stdout.startswith("{") else {}
            if seen.get("files") not in (None, ["program.py"]) or seen.get("env"):
                landed = True
            if seen.get("sorted") not in (None, [1, 2]):
                landed = True
    verdict = _verdict(name, steps, landed)
    if name == "pool_influence":  # planting in its own copy is the attack's first step
        verdict = "succeeded" if landed else ("partial" if steps else "blocked")
    return {
        "attack": name,
        "level": level,
        "start": "warm" if warm else "cold",
        "hook": "off" if hook_off else "on",
        "verdict": verdict,
        "steps": steps,
        "outcome": res.outcome.value,
        "hook_off_worked": res.stdout.startswith("HOOK-OFF") if hook_off else None,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", help="Also write every row to this JSON file.")
    args = parser.parse_args()
    levels = [str(x) for x in available_isolations()] + ["none"]
    rows = []
    with tempfile.TemporaryDirectory(prefix="closurebench-attacks-") as tmp:
        os.chmod(tmp, 0o755)
        host = _Host(Path(tmp))
        runs: list[Callable[[], dict[str, Any]]] = []
        for level in levels:
            for warm in (False, True):
                for hook_off in (False, True):
                    for name in ATTACKS:
                        runs.append(
                            lambda n=name, lv=level, w=warm, h=hook_off: attack(host, n, lv, w, h)
                        )
        started = time.perf_counter()
        for run in runs:
            rows.append(run())
        elapsed = time.perf_counter() - started
        host.listener.close()
    shutdown_zygotes()
    print(f"{len(rows)} attack runs in {elapsed:.1f} s (euid {os.geteuid()})")
    print(f"{'level':<6} {'start':<5} {'hook':<4} {'succeeded':>9} {'partial':>7} {'blocked':>7}")
    for level in levels:
        for start in ("cold", "warm"):
            for hook in ("on", "off"):
                cell = [
                    r for r in rows if (r["level"], r["start"], r["hook"]) == (level, start, hook)
                ]
                counts = {
                    v: sum(r["verdict"] == v for r in cell)
                    for v in ("succeeded", "partial", "blocked")
                }
                print(
                    f"{level:<6} {start:<5} {hook:<4} {counts['succeeded']:>9} "
                    f"{counts['partial']:>7} {counts['blocked']:>7}"
                )
    for row in rows:
        if row["verdict"] != "blocked":
            print(
                f"  {row['verdict']}: {row['attack']} at {row['level']} {row['start']} "
                f"hook {row['hook']}: steps {row['steps']} outcome {row['outcome']}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n")


if __name__ == "__main__":
    main()
