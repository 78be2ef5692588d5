"""The unsafe level (``none``, ``--unsafe-no-sandbox``) still keeps the answers out of reach.

No namespaces there, but Landlock (the runtime read-only, the program's temporary
directory read-write, nothing else) and the wall's seccomp allow-list (no process, no
socket, no ``execve``), where the machine has them. Every attack here runs with the
audit hook switched off from inside first (``hookless.HOOK_OFF``), cold and warm: the
two kernel layers alone must hold. The issue's two ``none`` attacks were a program that
read the answer key from the dataset on disk and one that left a process behind.
"""

from __future__ import annotations

import json
import os
import sys
import time
import uuid
from pathlib import Path

import pytest
from hookless import HOOK_OFF

from closurebench.sandbox import (
    Outcome,
    SandboxLimits,
    bootstrap,
    describe_isolation,
    run_ein,
    run_python,
)
from closurebench.sandbox.seccomp import seccomp_available

pytestmark = pytest.mark.skipif(
    bootstrap.landlock_abi() < 1 or not seccomp_available()[0],
    reason="the unsafe level's kernel layers need Landlock (Linux 5.13+) and libseccomp",
)
LIMITS = SandboxLimits(cpu_seconds=20, wall_seconds=30, memory_bytes=768 * 2**20)


def _attack(code: str, warm: bool) -> dict[str, object]:
    res = run_python(HOOK_OFF + code, limits=LIMITS, isolation="none", warm=warm)
    assert res.outcome is Outcome.OK, res
    head, body = res.stdout.split("\n", 1)
    assert head == "HOOK-OFF"
    return dict(json.loads(body))


_READ = """
import json, os
seen = {}
for path in json.loads(PATHS):
    try:
        if os.path.isdir(path):
            seen[path] = sorted(os.listdir(path))[:3]
        else:
            with open(path, "rb") as handle:
                seen[path] = handle.read(64).decode(errors="replace")
    except OSError as exc:
        seen[path] = exc.errno
print(json.dumps(seen))
"""


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_the_answer_key_and_run_folder_are_out_of_reach(tmp_path: Path, warm: bool) -> None:
    data = tmp_path / "data" / "closure-heldout.jsonl"
    data.parent.mkdir()
    data.write_text('{"answer": "SECRET-ANSWER"}\n')
    run = tmp_path / "run"
    run.mkdir()
    (run / "results.jsonl").write_text("{}\n")
    paths = [str(data), str(data.parent), str(run), str(run / "results.jsonl"), str(tmp_path)]
    paths += [os.path.expanduser("~root"), "/etc/passwd", "/tmp", f"/proc/{os.getpid()}/environ"]
    paths.append(str(Path.cwd() / "pyproject.toml"))
    seen = _attack(_READ.replace("PATHS", repr(json.dumps(paths))), warm)
    # EACCES (Landlock), or ENOENT where a root harness's program had a closed
    # directory on the way covered (bootstrap.reach): every one unreachable
    assert set(seen) == set(paths) and set(seen.values()) <= {2, 13}, seen
    assert "SECRET-ANSWER" not in json.dumps(seen)


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_nothing_outlives_the_program_and_nothing_leaves_it(tmp_path: Path, warm: bool) -> None:
    marker = tmp_path / f"closurebench-survivor-{uuid.uuid4().hex}"
    code = f"""
import ctypes, json, os, socket, subprocess
out = {{}}
libc = ctypes.CDLL(None, use_errno=True)
for name, call in (
    ("fork", lambda: os.fork()),
    ("spawn", lambda: subprocess.Popen(["/bin/sh", "-c", "sleep 30; touch {marker}"])),
    ("clone-raw", lambda: libc.syscall(56, 0x11, 0, 0, 0, 0) >= 0 or (_ for _ in ()).throw(
        OSError(ctypes.get_errno(), "clone"))),
    ("socket", lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)),
    ("unix", lambda: socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)),
    ("signal-harness", lambda: os.kill({os.getpid()}, 0)),
    ("write-outside", lambda: open("{marker}", "w")),
):
    try:
        call()
        out[name] = "DONE"
    except OSError as exc:
        out[name] = exc.errno
with open("mine.txt", "w") as handle:
    handle.write("ok")
out["own-dir"] = open("mine.txt").read()
print(json.dumps(out))
"""
    seen = _attack(code, warm)
    assert seen.pop("own-dir") == "ok"
    assert "DONE" not in seen.values(), seen
    assert {seen[k] for k in ("fork", "spawn", "clone-raw", "socket", "unix")} == {1}  # EPERM
    if bootstrap.landlock_abi() >= 6:  # scoped signals: none to a process outside
        assert seen["signal-harness"] == 1
    assert seen["write-outside"] in (2, 13)  # EACCES, or ENOENT under a covered directory
    time.sleep(0.2)
    assert not marker.exists()


def test_the_ein_worker_is_confined_too() -> None:
    res = run_ein("A = edges([[0,1],[1,2]])\n:print sum(reach(A, 0))", isolation="none")
    assert res.printed == (("sum(reach(A, 0))", 3),)


def test_the_summary_records_the_layers_the_unsafe_level_had() -> None:
    layers = describe_isolation("none")["layers"]
    assert "landlock_runtime_only" in layers and "seccomp" in layers
    if os.geteuid() == 0:
        assert "no_capabilities" in layers


_WHO = """
import json, os
st = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
print(json.dumps({
    "uid": st["Uid"].split(), "gid": st["Gid"].split(), "groups": st["Groups"].split(),
    "caps": [int(st[k].strip(), 16) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
    "nnp": st["NoNewPrivs"].strip(), "home": sorted(os.listdir(os.path.expanduser("~root")))
    if os.path.isdir(os.path.expanduser("~root")) else None,
}))
import heapq, scipy.sparse.csgraph  # the runtime is still there for it
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="an ordinary user's program has its uid already")
@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_a_root_harness_program_has_no_privilege_at_the_unsafe_level(warm: bool) -> None:
    from closurebench.sandbox.isolation import SANDBOX_GID, SANDBOX_UID, _private_mounts_work

    if not _private_mounts_work() and any(
        map(bootstrap.closed_ancestor, [os.path.realpath(sys.base_prefix)])
    ):
        pytest.skip("no mount namespace here to open the interpreter's directory")
    seen = _attack(_WHO, warm)
    assert seen["uid"] == [str(SANDBOX_UID)] * 4 and seen["gid"] == [str(SANDBOX_GID)] * 4
    assert seen["groups"] == [] and seen["caps"] == [0] * 5 and seen["nnp"] == "1"
