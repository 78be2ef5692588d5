"""The probe that runs inside the wall (its source is sent as a program; not a test module).

``probe_source(runtime)`` is the program: ``runtime`` names the read-only trees that the
sandbox is meant to show (the system's libraries, the interpreter's prefix, the package
tree). It prints one JSON object: the process's uids, gids, groups, capability sets,
``no_new_privs`` and seccomp mode; every path it can write (by trying: a new file in each
directory, an open for writing of each file) outside its scratch tmpfs and its own
``/proc/<pid>``; the character devices among them; every file or directory it can see
outside the runtime; the ``/proc/sys`` entries it sees and can write; the socket
families it can open; its network interfaces; what it can write of another process of
its sandbox (a warm zygote) and of its own LSM attributes.
"""

from __future__ import annotations

import json

__all__ = ["probe_source"]

_PROBE = r'''
import json, os, socket, stat

RUNTIME = json.loads(__RUNTIME__)
ME = str(os.getpid())
SCRATCH = "/sandbox"


def status():
    out = {}
    with open("/proc/self/status") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            out[key] = value.strip()
    return out


def inside(path, roots):
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def ancestor(path, roots):
    return any(r.startswith(path.rstrip("/") + "/") for r in roots)


def try_write_file(path):
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return False
    os.close(fd)
    return True


def try_write_back(path):
    """Write a file of another process: its own content back (or ``0``), as an attacker
    would write a value; opening alone proves nothing (procfs checks on write)."""
    try:
        with open(path, "rb") as handle:
            data = handle.read(4096) or b"0"
    except OSError:
        data = b"0"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError:
        return False
    try:
        os.write(fd, data)
    except OSError:
        return False
    finally:
        os.close(fd)
    return True


def try_new_file(directory):
    probe = os.path.join(directory, ".closurebench-probe")
    try:
        fd = os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except OSError:
        return False
    os.close(fd)
    os.unlink(probe)
    return True


st = status()
report = {
    "uid": [int(x) for x in st["Uid"].split()],
    "gid": [int(x) for x in st["Gid"].split()],
    "groups": [int(x) for x in st["Groups"].split()],
    "caps": {k: int(st[k], 16) for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")},
    "no_new_privs": int(st["NoNewPrivs"]),
    "seccomp": int(st["Seccomp"]),
}
writable, sinks, outside = [], [], []
roots = RUNTIME + [SCRATCH, "/proc", "/dev", "/tmp"]
for root, dirs, files in os.walk("/"):
    if root in ("/proc", SCRATCH):
        dirs[:] = []
        continue
    if try_new_file(root):
        writable.append(root)
    if not inside(root, roots) and not ancestor(root, roots) and root != "/":
        outside.append(root)
    for name in files + [d for d in dirs if os.path.islink(os.path.join(root, d))]:
        path = os.path.join(root, name)
        info = os.lstat(path)
        if not inside(path, roots) and not ancestor(path, roots):
            outside.append(path)
        if stat.S_ISLNK(info.st_mode):
            continue
        if try_write_file(path):
            if stat.S_ISCHR(info.st_mode):
                sinks.append([path, os.major(info.st_rdev), os.minor(info.st_rdev)])
            else:
                writable.append(path)

# /proc: every entry but the processes' own directories, then the other processes.
sysctl_entries, sysctl_writable = 0, []
for name in sorted(os.listdir("/proc")):
    path = "/proc/" + name
    if name.isdigit() or os.path.islink(path):
        continue
    if os.path.isdir(path):
        for root, dirs, files in os.walk(path):
            if root.startswith("/proc/sys"):
                sysctl_entries += len(dirs) + len(files)
            if try_new_file(root):
                writable.append(root)
            for f in files:
                p = os.path.join(root, f)
                if try_write_file(p):
                    (sysctl_writable if p.startswith("/proc/sys") else writable).append(p)
        continue
    if try_write_file(path):
        info = os.stat(path)
        if stat.S_ISCHR(info.st_mode):
            sinks.append([path, os.major(info.st_rdev), os.minor(info.st_rdev)])
        else:
            writable.append(path)
others = []
for pid in sorted(p for p in os.listdir("/proc") if p.isdigit() and p != ME):
    for sub in ("", "attr/"):
        base = f"/proc/{pid}/{sub}"
        try:
            names = os.listdir(base)
        except OSError:
            continue
        for name in names:
            if os.path.isfile(base + name) and try_write_back(base + name):
                others.append(base + name)
    try:
        with open(f"/proc/{pid}/mem", "rb") as handle:
            handle.read(1)
        others.append(f"/proc/{pid}/mem (read)")
    except OSError:
        pass
attr_written = []
for name in sorted(os.listdir("/proc/self/attr")):
    path = "/proc/self/attr/" + name
    try:
        fd = os.open(path, os.O_WRONLY)
        try:
            os.write(fd, b"unconfined")
            attr_written.append(path)
        finally:
            os.close(fd)
    except OSError:
        pass
families = []
for fam in ("AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK", "AF_PACKET", "AF_ALG", "AF_VSOCK"):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_RAW):
        try:
            socket.socket(getattr(socket, fam), kind).close()
            families.append(fam)
            break
        except (OSError, AttributeError):
            continue
with open("/proc/net/dev") as handle:
    interfaces = sorted(line.split(":")[0].strip() for line in handle if ":" in line)
report.update(
    writable=sorted(writable),
    sinks=sorted(sinks),
    outside=sorted(outside),
    sysctl_entries=sysctl_entries,
    sysctl_writable=sorted(sysctl_writable),
    other_processes_writable=others,
    attr_written=attr_written,
    sockets=families,
    interfaces=interfaces,
    scratch_writable=try_new_file(SCRATCH),
    pids=sorted(p for p in os.listdir("/proc") if p.isdigit()),
)
print(json.dumps(report))
'''


def probe_source(runtime: list[str]) -> str:
    """The probe program, for the read-only trees ``runtime`` (paths inside the sandbox)."""
    return _PROBE.replace("__RUNTIME__", repr(json.dumps(sorted(runtime))))
