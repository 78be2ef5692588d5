"""run_python: outcomes of ordinary programs, graph capture, configuration, the wall gate."""

from __future__ import annotations

import os

import pytest

from closurebench.errors import ConfigError
from closurebench.sandbox import (
    ISOLATION_ENV,
    CapturedGraph,
    Isolation,
    Outcome,
    SandboxLimits,
    SandboxStartError,
    SandboxUnavailableError,
    describe_isolation,
    require_wall,
    run_python,
)
from closurebench.sandbox import isolation as sandbox_isolation
from closurebench.sandbox import python as sandbox_python
from closurebench.sandbox import warm as sandbox_warm


def test_ok_program(level: str, limits: SandboxLimits) -> None:
    res = run_python("print(1)", limits=limits, isolation=level)
    assert res.outcome is Outcome.OK and res.ok and res.detail == ""
    assert res.stdout == "1\n" and res.exit_code == 0
    assert res.isolation == level


def test_syntax_error(level: str, limits: SandboxLimits) -> None:
    res = run_python("def f(:\n    pass\n", limits=limits, isolation=level)
    assert res.outcome is Outcome.SYNTAX_ERROR
    assert "line 1" in res.detail


def test_runtime_error_names_the_exception(level: str, limits: SandboxLimits) -> None:
    res = run_python("print('before')\nx = 1 / 0\n", limits=limits, isolation=level)
    assert res.outcome is Outcome.RUNTIME_ERROR and res.detail == "ZeroDivisionError"
    assert res.stdout == "before\n"
    assert "ZeroDivisionError" in res.stderr and "bootstrap" not in res.stderr


def test_sys_exit_nonzero_is_a_runtime_error_and_zero_is_ok(limits: SandboxLimits) -> None:
    res = run_python("import sys\nsys.exit(3)", limits=limits, isolation="none")
    assert res.outcome is Outcome.RUNTIME_ERROR and res.detail == "SystemExit(3)"
    assert run_python("import sys\nsys.exit(0)", limits=limits, isolation="none").ok


def test_networkx_numpy_and_scipy_are_importable(level: str, limits: SandboxLimits) -> None:
    code = (
        "import networkx as nx, numpy as np\n"
        "import scipy.sparse.csgraph\n"
        "G = nx.gnm_random_graph(30, 60, seed=1, directed=True)\n"
        "print(len(nx.transitive_closure(G).edges) >= 60, float(np.linalg.inv(np.eye(2)).sum()))\n"
        "print(nx.shortest_path_length(nx.path_graph(5), 0, 4))\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.OK, res.stderr
    assert res.stdout.split() == ["True", "2.0", "4"]


def test_graph_capture_returns_the_constructed_graph_with_weights(
    level: str, limits: SandboxLimits
) -> None:
    code = (
        "import networkx as nx\n"
        "def build():\n"
        "    H = nx.MultiDiGraph()\n"
        "    H.add_edge('x', 'y')\n"
        "    return H\n"
        "G = nx.DiGraph()\n"
        "G.add_weighted_edges_from([('a', 'b', 2.5), ('b', 'c', 1)])\n"
        "G.add_node(('t', 1))\n"
        "P = nx.path_graph(3)\n"
        "build()\n"
        "print(nx.dijkstra_path_length(G, 'a', 'c'))\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.OK, res.stderr
    by_name = {g.name: g for g in res.graphs}
    g = by_name["G"]
    assert isinstance(g, CapturedGraph) and g.directed and not g.multigraph
    assert g.nodes == ("a", "b", "c", "('t', 1)")
    assert g.weighted_edges() == {("a", "b"): 2.5, ("b", "c"): 1.0}
    assert by_name["P"].edge_set() == {(0, 1), (1, 2)} and not by_name["P"].directed
    multi = by_name[None]  # built inside a function: captured at its constructor call
    assert multi.multigraph and multi.edge_set() == {("x", "y")}
    assert not res.graphs_truncated
    # the algorithm's internal graphs are not the program's
    assert len(res.graphs) == 3


def test_graphs_are_captured_even_when_the_program_fails(limits: SandboxLimits) -> None:
    code = "import networkx as nx\nG = nx.Graph([(1, 2)])\nraise ValueError('late')\n"
    res = run_python(code, limits=limits, isolation="none")
    assert res.outcome is Outcome.RUNTIME_ERROR and res.detail == "ValueError"
    assert [g.edge_set() for g in res.graphs] == [{(1, 2)}]


def test_graph_capture_can_be_switched_off(limits: SandboxLimits) -> None:
    code = "import networkx as nx\nG = nx.Graph([(1, 2)])\n"
    res = run_python(code, limits=limits, isolation="none", capture_graphs=False)
    assert res.ok and res.graphs == ()


def test_graph_capture_is_capped(limits: SandboxLimits) -> None:
    code = "import networkx as nx\nGs = [nx.Graph([(i, i + 1)]) for i in range(40)]\n"
    res = run_python(code, limits=limits, isolation="none")
    assert res.ok and len(res.graphs) == sandbox_python.MAX_GRAPHS and res.graphs_truncated


def test_swallowing_the_refusal_still_reports_forbidden(level: str, limits: SandboxLimits) -> None:
    code = (
        "try:\n"
        "    import socket\n"
        "    socket.socket()\n"
        "except Exception:\n"
        "    pass\n"
        "print('carried on')\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.FORBIDDEN and res.detail == "socket.socket"
    assert res.stdout == "carried on\n"


def test_writing_inside_the_temp_dir_is_allowed_and_the_dir_is_removed(
    level: str, limits: SandboxLimits
) -> None:
    code = (
        "import os, tempfile\n"
        "open('notes.txt', 'w').write('hi')\n"
        "os.mkdir('sub')\n"
        "os.rename('notes.txt', 'sub/n.txt')\n"
        "with tempfile.TemporaryFile() as f:\n"
        "    f.write(b'x')\n"
        "print(os.getcwd())\n"
        "print(open('sub/n.txt').read())\n"
    )
    res = run_python(code, limits=limits, isolation=level)
    assert res.outcome is Outcome.OK, res
    cwd, text = res.stdout.split()
    assert text == "hi"
    if level == "bwrap":  # a private tmpfs: nothing of it is on the host
        assert cwd == "/sandbox"
    else:
        assert "closurebench-sandbox-" in cwd
        assert not os.path.exists(cwd)


def test_unicode_and_undecodable_output(limits: SandboxLimits) -> None:
    code = (
        "import sys\nprint('ünïcødé')\nsys.stdout.flush()\nsys.stdout.buffer.write(b'\\xff\\n')\n"
    )
    res = run_python(code, limits=limits, isolation="none")
    assert res.ok and res.stdout.startswith("ünïcødé\n") and "\ufffd" in res.stdout


def test_bad_arguments_raise_config_error() -> None:
    with pytest.raises(ConfigError, match="code is a int"):
        run_python(123)  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="isolation is 'jail'"):
        run_python("print(1)", isolation="jail")
    with pytest.raises(ConfigError, match="pass a SandboxLimits"):
        run_python("print(1)", limits={"wall_seconds": 1})  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="at most 2000000"):
        run_python("#" * 2_000_001)


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("wall_seconds", 0),
        ("cpu_seconds", float("inf")),
        ("memory_bytes", 2**20),
        ("stdout_bytes", 0),
        ("open_files", True),
        ("file_bytes", 1.5),
    ],
)
def test_limits_are_validated(field: str, value: object) -> None:
    with pytest.raises(ConfigError, match=f"SandboxLimits.{field}"):
        SandboxLimits(**{field: value})  # type: ignore[arg-type]


def test_isolation_knob_and_description(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ISOLATION_ENV, "none")
    # The variable alone is not consent: one line naming the flag, nothing runs.
    with pytest.raises(SandboxUnavailableError, match="pass --unsafe-no-sandbox") as info:
        run_python("print(1)")
    assert "\n" not in str(info.value)
    with pytest.raises(SandboxUnavailableError, match="not consent"):
        require_wall()
    assert require_wall("none") is Isolation.NONE  # asked for by name
    desc = describe_isolation("none")
    assert desc["isolation"] == "none" and desc["forced"] == "none"
    assert desc["unsafe"] is True and desc["wall"] is False
    monkeypatch.setenv(ISOLATION_ENV, "chroot")
    with pytest.raises(ConfigError, match=ISOLATION_ENV):
        require_wall()
    monkeypatch.setenv(ISOLATION_ENV, "unshare")
    with pytest.raises(ConfigError, match="not a wall"):
        require_wall()


def test_no_wall_no_run(monkeypatch: pytest.MonkeyPatch, limits: SandboxLimits) -> None:
    """Where bubblewrap is missing, a program is refused with the install line."""
    monkeypatch.delenv(ISOLATION_ENV, raising=False)
    monkeypatch.setattr(sandbox_isolation, "_PROBED", {})
    monkeypatch.setattr(sandbox_isolation.shutil, "which", lambda name: None)
    with pytest.raises(SandboxUnavailableError, match="apt-get install bubblewrap"):
        run_python("print(1)", limits=limits)
    with pytest.raises(SandboxUnavailableError, match="--unsafe-no-sandbox"):
        run_python("print(1)", limits=limits, isolation="bwrap")
    assert run_python("print(1)", limits=limits, isolation="none").ok  # asked for by name


def test_a_wall_that_fails_to_start_stops_the_run(
    monkeypatch: pytest.MonkeyPatch, limits: SandboxLimits
) -> None:
    """Never a silent fall back to a weaker level: the run gets an error it can show."""
    monkeypatch.setattr(sandbox_isolation, "_PROBED", {Isolation.BWRAP: (True, "")})

    def broken(argv: list[str], **kwargs: object) -> list[str]:
        return ["sh", "-c", "echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1"]

    monkeypatch.setattr(sandbox_python, "bwrap_command", broken)
    with pytest.raises(SandboxStartError, match="setting up uid map"):
        run_python("print(2)", limits=limits, isolation="bwrap", warm=False)
    # Warm: the zygote does not start, the program goes cold, and the cold wall fails too.
    sandbox_warm.shutdown_zygotes()
    monkeypatch.setattr(sandbox_warm, "bwrap_command", broken)
    monkeypatch.setattr(sandbox_python, "_COLD_WARNED", set())
    with (
        pytest.warns(RuntimeWarning, match="warm zygote"),
        pytest.raises(SandboxStartError, match="setting up uid map"),
    ):
        run_python("print(2)", limits=limits, isolation="bwrap", warm=True)
