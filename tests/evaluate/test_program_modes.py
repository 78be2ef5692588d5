"""Program-synthesis modes end to end: reference programs, and scripted model programs over HTTP.

* ``--model oracle-program`` (each instance's own verified program) reaches 100 % strict
  with every program executed, in ``program-ein`` and ``program-python`` on ClosureBench
  and in ``program-python`` on GRIT;
* a scripted OpenAI-compatible server returns correct, wrong-logic, misread-edge,
  syntax-error and hostile programs; each gets its outcome and its §4.5 error class.
"""

from __future__ import annotations

import json
import re
import socket
import threading
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import Reply
from typer.testing import CliRunner

import closurebench
from closurebench.ein import run as ein_run
from closurebench.ein import to_json_value
from closurebench.errors import ConfigError
from closurebench.evaluate.modes import get_mode
from closurebench.evaluate.program import ein_edge_lists, oracle_program
from closurebench.evaluate.records import iter_results
from closurebench.evaluate.reference import reference_provider
from closurebench.generate.grit import GritConfig, write_split
from closurebench.report.aggregate import load_runs
from closurebench.report.tables import all_tables
from closurebench.schema import ClosureInstance
from closurebench.tasks.closure import CLOSURE_TASKS


@pytest.fixture(scope="module")
def heldout_two_each(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """Two instances of every ClosureBench category (heldout preset)."""
    count = 2 * len(CLOSURE_TASKS)
    out = tmp_path_factory.getbasetemp() / f"closure-heldout-{count}"
    if not (out / "closure-heldout.jsonl").exists():
        closurebench.generate_split("heldout", seed=0, count=count, out=out)
    path = out / "closure-heldout.jsonl"
    return path, closurebench.load_instances(path)


def _eval(data: Path, out: Path, *args: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(out), "--no-progress", "--concurrency", "4", *args]
    )
    assert res.exit_code == 0, res.output
    return list(iter_results(out / "results.jsonl"))


def _assert_all_correct(results: list[dict[str, Any]], out: Path, n: int) -> None:
    assert len(results) == n
    bad = [
        (r["id"], r["reason"], r["extra"]["stdout_head"][:200]) for r in results if not r["strict"]
    ]
    assert not bad, bad[:3]
    assert all(r["extra"]["exec_outcome"] == "ok" and not r["extra"]["exec_error"] for r in results)
    assert all(r["extra"]["graph_read"] is True for r in results)
    assert all(r["extra"]["error_class"] is None for r in results)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["strict_accuracy"] == 1.0
    run = json.loads((out / "run.json").read_text())
    assert run["provider"] == "reference"
    assert run["sandbox"]["isolation"] in ("bwrap", "unshare", "none")


def test_oracle_program_ein_reaches_100(
    heldout_two_each: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    data, records = heldout_two_each
    out = tmp_path / "ein"
    results = _eval(data, out, "--mode", "program-ein", "--model", "oracle-program")
    _assert_all_correct(results, out, len(records))
    assert {r["extra"]["language"] for r in results} == {"ein"}
    assert len({r["category"] for r in results}) == len(CLOSURE_TASKS)
    # the report's program table: execution rate, no wrong answers
    tables = all_tables(load_runs([out]))
    (prog,) = [t for t in tables["ClosureBench"] if t.key == "closure_programs"]
    n = 2 * len(CLOSURE_TASKS)  # the fixture's records, all executed
    assert prog.rows[0][1:4] == [f"{n}/{n} (100.0%)", "100.0", "0"]


def test_oracle_program_python_reaches_100_on_closure(
    heldout_two_each: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    data, _ = heldout_two_each
    out = tmp_path / "py"
    n = len(CLOSURE_TASKS)
    results = _eval(data, out, "--mode", "program-python", "--model", "oracle-program",
                    "--sample", str(n))  # fmt: skip
    _assert_all_correct(results, out, n)
    assert len({r["category"] for r in results}) == n


def test_oracle_program_python_reaches_100_on_grit(tmp_path: Path) -> None:
    path, _, _ = write_split(GritConfig(split="test", seed=5, count=6, n_max=10), tmp_path / "d")
    out = tmp_path / "grit"
    results = _eval(path, out, "--mode", "program-python", "--model", "oracle-program")
    _assert_all_correct(results, out, 48)
    assert len({r["task"] for r in results}) == 6


def test_oracle_program_refuses_other_modes(heldout_two_each: tuple[Path, list[Any]]) -> None:
    _, records = heldout_two_each
    with pytest.raises(ConfigError, match="pass --mode program-ein"):
        reference_provider("oracle-program", records, get_mode("direct"))


def test_program_ein_has_no_grit_prompt(tmp_path: Path) -> None:
    path, _, _ = write_split(GritConfig(split="test", seed=5, count=1, n_max=12), tmp_path / "d")
    res = CliRunner().invoke(
        EVAL_APP,
        [str(path), "--out", str(tmp_path / "r"), "--no-progress", "--mode", "program-ein",
         "--model", "oracle-program"],
    )  # fmt: skip
    assert res.exit_code == 1
    assert "program-ein" in res.output and "grit" in res.output


# -- scripted model programs over HTTP --------------------------------------------------


def _misread(record: ClosureInstance) -> tuple[str, str]:
    """Ein and Python programs that drop one edge of the graph and so answer differently."""
    ein = record.programs["ein"]
    pairs = (ein_edge_lists(ein) or [[]])[0]
    truth = to_json_value(ein_run(ein).value)
    for drop in pairs:
        kept = [p for p in pairs if p != drop]
        literal = "[" + ",".join(f"[{u},{v}]" for u, v in kept) + "]"
        program = re.sub(r"edges\(\[\[.*?\]\]", f"edges({literal}", ein, count=1)
        if to_json_value(ein_run(program).value) != truth:
            py = oracle_program(record, "python").replace(f"({drop[0]}, {drop[1]}), ", "", 1)
            py = py.replace(f", ({drop[0]}, {drop[1]})", "", 1)
            return program, py
    raise AssertionError(f"{record.id}: no single missing edge changes the answer")


def _wrong_logic(record: ClosureInstance, language: str) -> str:
    """The right graph, a wrong answer: the count plus 3 (beyond any lenient tolerance)."""
    assert isinstance(record.answer, int)
    wrong = record.answer + 3
    program = oracle_program(record, language)
    if language == "ein":
        return program + "Wrong = Result + 3\n:print Wrong\n"
    lines = program.rstrip("\n").split("\n")
    return "\n".join([*lines[:-1], f"print({wrong})"]) + "\n"


class Listener:
    """A loopback TCP listener that records every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


KINDS = ("correct", "wrong_logic", "misread_edge", "syntax_error", "hostile", "empty")
#: kind -> (outcome, exec_outcome, exec_error, graph_read, error_class)
EXPECTED: dict[str, tuple[str, str, bool, bool | None, str | None]] = {
    "correct": ("strict_correct", "ok", False, True, None),
    "wrong_logic": ("wrong", "ok", False, True, "logic"),
    "misread_edge": ("wrong", "ok", False, False, "graph_reading"),
    # a program that does not run gave no answer (Table 11's "No ans."), class execution
    "syntax_error": ("no_answer", "syntax_error", True, False, "execution"),
    "hostile": ("no_answer", "", True, None, "execution"),
    "empty": ("no_answer", "no_program", True, None, "execution"),
}


@pytest.mark.parametrize("language", ["python", "ein"])
def test_scripted_programs_over_http(
    language: str, heldout_two_each: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    data, records = heldout_two_each
    record = next(r for r in records if r.category == "degree_count")
    misread_ein, misread_py = _misread(record)
    listener = Listener()
    hostile = {
        "python": (
            "import socket\n"
            f"s = socket.create_connection(('127.0.0.1', {listener.port}), timeout=2)\n"
            "s.sendall(b'stolen')\nprint(1)\n"
        ),
        "ein": "A = ones(100000, 100000)\n:print sum(A)\n",
    }[language]
    programs = {
        "correct": oracle_program(record, language),
        "wrong_logic": _wrong_logic(record, language),
        "misread_edge": misread_ein if language == "ein" else misread_py,
        "syntax_error": (
            "import networkx as nx\nG = nx.DiGraph(\nprint(1)\n"
            if language == "python"
            else "A = edges([[0,1]], 4\n:print sum(A)\n"
        ),
        "hostile": hostile,
    }
    fence = "python" if language == "python" else "ein"
    try:
        for kind in KINDS:
            program = programs.get(kind)
            text = (
                "I cannot write this."
                if program is None
                else (f"Here is the program.\n```{fence}\n{program}```\nIt prints the answer.")
            )
            if kind == "empty":
                text = ""
            fake_openai.script(Reply(text, completion_tokens=50))
            out = tmp_path / kind
            (result,) = _eval(
                data, out, "--mode", f"program-{language}", "--model", "m",
                "--base-url", fake_openai.base_url, "--categories", "degree_count",
                "--limit", "1",
            )  # fmt: skip
            assert result["id"] == record.id
            extra = result["extra"]
            outcome, exec_outcome, exec_error, graph_read, error_class = EXPECTED[kind]
            got = (result["outcome"], extra["exec_error"], extra["error_class"])
            assert got == (outcome, exec_error, error_class), (kind, result["reason"], extra)
            if exec_outcome:
                assert extra["exec_outcome"] == exec_outcome, (kind, extra)
            if graph_read is not None:
                assert extra["graph_read"] is graph_read, (kind, extra)
            if kind == "hostile":
                expected = "forbidden" if language == "python" else "memory_limit"
                assert extra["exec_outcome"] == expected, extra
            if kind == "correct":
                assert result["extracted"] == record.answer
    finally:
        listener.close()
    assert listener.accepted == 0
    # one run per kind: their report rows carry the class of each
    runs = load_runs([tmp_path / kind for kind in KINDS])
    (prog,) = [t for t in all_tables(runs)["ClosureBench"] if t.key == "closure_programs"]
    cells = {row[0].split("(")[-1].rstrip(")"): row for row in prog.rows}
    assert cells["misread_edge"][4] == "1 (100%)" and cells["wrong_logic"][5] == "1 (100%)"
    assert cells["syntax_error"][6] == "1 (100%)" and cells["correct"][3] == "0"
    # the program-mode prompt went out: Ein carries the syntax card and the node order
    system = fake_openai.chat_requests[0].body["messages"][0]["content"]
    if language == "ein":
        assert "BUILTINS:" in system and "order in which the question first lists" in system
    else:
        assert "NetworkX" in system


def test_program_counts_in_summary_by_outcome(
    heldout_two_each: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    """A program that prints nothing is no_answer; one that prints a label list is read."""
    data, records = heldout_two_each
    by_q = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Reply:
        rec = by_q[body["messages"][-1]["content"]]
        if rec.category == "negative_reach":  # prints nothing
            return Reply("```python\nx = 1\n```")
        # the direct-mode answer object, printed: unwrapped
        return Reply(f"```python\nprint({json.dumps({'answer': rec.answer})!r})\n```")

    fake_openai.script(default=step)
    results = _eval(
        data, tmp_path / "r", "--mode", "program-python", "--model", "m", "--base-url",
        fake_openai.base_url, "--categories", "negative_reach,reachability,max_degree",
    )  # fmt: skip
    counts = Counter((r["category"], r["outcome"]) for r in results)
    assert counts[("negative_reach", "no_answer")] == 2
    assert counts[("reachability", "strict_correct")] == 2
    assert counts[("max_degree", "strict_correct")] == 2
    quiet = next(r for r in results if r["category"] == "negative_reach")
    assert quiet["extra"]["exec_outcome"] == "ok" and quiet["extra"]["exec_detail"] == "no output"


# -- Table 11 of a run of scripted programs equals the hand count ---------------------

#: category -> the program of its first and its second instance (``correct`` is the
#: instance's own verified program; the others are written by :func:`_table11_program`).
TABLE11_SCRIPT: dict[str, tuple[str, str]] = {
    "reach_then_count": ("correct", "plus_one"),  # count-ambiguous: +1 is lenient-only
    "degree_count": ("plus_three", "syntax_error"),
    "reachability": ("correct", "raises"),
    "max_degree": ("correct", "integer_name"),  # 7 for a name: line 1, a format error
    "multi_query": ("missing_member", "prints_nothing"),  # line 27: a missing member fails
}
#: The hand count of those ten programs, in Table 11's column order.
TABLE11_HAND_COUNT = {
    "strict_correct": 3,  # reach_then_count, reachability, max_degree: the correct programs
    "lenient_only": 1,  # reach_then_count answer + 1
    "wrong": 2,  # degree_count answer + 3; multi_query without "degree"
    "format_error": 1,  # max_degree printing 7
    "no_answer": 3,  # the syntax error and the exception (did not run); printed nothing
}


def _table11_program(record: ClosureInstance, kind: str) -> str:
    answer: Any = record.answer
    if kind == "correct":
        return oracle_program(record, "python")
    if kind in ("plus_one", "plus_three"):
        return f"print({int(answer) + (1 if kind == 'plus_one' else 3)})\n"
    if kind == "missing_member":
        return f"import json\nprint(json.dumps({{'reachable': {answer['reachable']!r}}}))\n"
    return {
        "syntax_error": "import networkx as nx\nG = nx.DiGraph(\nprint(1)\n",
        "raises": "raise ValueError('no graph today')\n",
        "integer_name": "print(7)\n",
        "prints_nothing": "x = 1\n",
    }[kind]


def test_table11_of_scripted_programs_equals_the_hand_count(
    heldout_two_each: tuple[Path, list[Any]],
    fake_openai: Any,
    tmp_path: Path,
) -> None:
    """Issue 21 item 5: a program that does not run is "No ans." (the paper's Table 11:
    Ein 0.4 %, Python 2.3 %), so the report's Table 11 columns equal a hand count."""
    data, records = heldout_two_each
    picked = {c: [r for r in records if r.category == c] for c in TABLE11_SCRIPT}
    assert all(len(v) == 2 for v in picked.values())
    kind_of = {
        rec.question: TABLE11_SCRIPT[cat][i] for cat, recs in picked.items() for i, rec in
        enumerate(recs)
    }  # fmt: skip
    by_q = {r.question: r for r in records}

    def step(body: dict[str, Any]) -> Reply:
        question = body["messages"][-1]["content"]
        program = _table11_program(by_q[question], kind_of[question])
        return Reply(f"```python\n{program}```", completion_tokens=20)

    fake_openai.script(default=step)
    categories = ",".join(TABLE11_SCRIPT)

    def table11(out: Path, *extra: str) -> list[str]:
        _eval(data, out, "--mode", "program-python", "--model", "m",
              "--base-url", fake_openai.base_url, "--categories", categories, *extra)  # fmt: skip
        (outcomes,) = [t for t in all_tables(load_runs([out]))["ClosureBench"]
                       if t.key == "closure_outcomes"]  # fmt: skip
        (row,) = outcomes.rows
        return row[1:]

    n = sum(TABLE11_HAND_COUNT.values())
    assert n == 10
    want = [f"{100 * k / n:.1f}" for k in TABLE11_HAND_COUNT.values()] + [str(n)]
    assert table11(tmp_path / "paper") == want == ["30.0", "10.0", "20.0", "10.0", "30.0", "10"]

    results = {r["id"]: r for r in iter_results(tmp_path / "paper" / "results.jsonl")}
    assert Counter(r["outcome"] for r in results.values()) == TABLE11_HAND_COUNT
    for rec in records:
        kind = kind_of.get(rec.question)
        if kind in ("syntax_error", "raises"):  # the execution class stays in the record
            r = results[rec.id]
            assert r["outcome"] == "no_answer", r["reason"]
            assert r["extra"]["exec_error"] is True and r["extra"]["error_class"] == "execution"
            want_exec = "syntax_error" if kind == "syntax_error" else "runtime_error"
            assert r["extra"]["exec_outcome"] == want_exec
    (prog,) = [t for t in all_tables(load_runs([tmp_path / "paper"]))["ClosureBench"]
               if t.key == "closure_programs"]  # fmt: skip
    assert prog.rows[0][1] == "8/10 (80.0%)" and prog.rows[0][3] == "6"
    assert prog.rows[0][6] == "2 (33%)"  # execution class: the two programs that did not run

    # the knob for the old count: a failed run as a wrong answer moves two to Wrong
    old = table11(tmp_path / "old", "--failed-program-as", "wrong")
    assert old == ["30.0", "10.0", "40.0", "10.0", "10.0", "10"]
    run = json.loads((tmp_path / "old" / "run.json").read_text())
    assert run["failed_program_as"] == "wrong"
