"""The GRAIN agent mode over HTTP with a scripted server, and the reference agent.

Each protocol situation the issue lists is a documented outcome, never a crash: a valid
call then an answer; invalid JSON; a wrong schema; an unknown problem type; a graph over
the size limit; too many rounds; ``</answer>`` missing; text after ``</answer>``; two
``<graph>`` calls in one turn. The fake server ignores ``stop`` (as some servers do), so
the mode's own cut at the first closing tag is exercised too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from eval_cli import EVAL_APP
from fake_openai_server import Reply
from typer.testing import CliRunner

import closurebench
from closurebench.evaluate.modes.agent import GRAIN_SYSTEM, split_turn
from closurebench.evaluate.records import iter_results
from closurebench.evaluate.reference import reader_call
from closurebench.generate.grit import GritConfig, write_split
from closurebench.tasks.closure import CLOSURE_TASKS


@pytest.fixture(scope="module")
def grit_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Any]]:
    """A GRIT test split: 6 graphs (one per task) × 8 views."""
    out = tmp_path_factory.getbasetemp() / "grit-test-agent"
    if not (out / "grit-test.jsonl").exists():
        write_split(GritConfig(split="test", seed=11, count=6, n_max=10), out)
    path = out / "grit-test.jsonl"
    return path, closurebench.load_instances(path)


def _eval(data: Path, out: Path, *args: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(out), "--no-progress", "--mode", "agent", *args]
    )
    assert res.exit_code == 0, res.output
    return list(iter_results(out / "results.jsonl"))


def test_reference_agent_scores_100_with_exact_graphs(
    grit_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    data, records = grit_data
    out = tmp_path / "reader"
    results = _eval(data, out, "--model", "reader", "--concurrency", "4")
    assert len(results) == len(records) == 48
    bad = [(r["id"], r["reason"], r["response"][-300:]) for r in results if not r["strict"]]
    assert not bad, bad[:2]
    for r in results:
        x = r["extra"]
        assert x["agent_outcome"] == "answered" and x["rounds"] == 2 and x["tool_calls"] == 1
        assert x["structure"]["cls"] == "exact" and x["s_inv"] == 1.0, (r["id"], x["structure"])
    run = json.loads((out / "run.json").read_text())
    assert run["agent"]["stop"] == ["</graph>", "</answer>"]


def _record(
    records: list[Any], task: str = "shortest_path", view: str = "standard/semantic"
) -> Any:
    return next(r for r in records if r.task == task and r.view == view)


def _one(
    fake: Any, data: Path, out: Path, record: Any, *steps: Any, default: Any = None
) -> dict[str, Any]:
    fake.script(*steps, default=default)
    (result,) = _eval(
        data, out, "--model", "m", "--base-url", fake.base_url, "--tasks", str(record.task),
        "--limit", "1",
    )  # fmt: skip
    assert result["id"] == record.id
    return result


def test_agent_protocol_outcomes_over_http(
    grit_data: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    data, records = grit_data
    rec = next(r for r in records if r.task == "shortest_path")
    call = json.dumps(reader_call(rec))
    answer = f"<think>done</think><answer>{rec.answer}</answer>"

    # 1. a valid call, then the answer
    r = _one(fake_openai, data, tmp_path / "valid", rec,
             Reply(f"<think>read</think><graph>{call}</graph>"), Reply(answer))  # fmt: skip
    x = r["extra"]
    assert r["outcome"] == "strict_correct" and x["agent_outcome"] == "answered"
    assert (x["rounds"], x["tool_calls"], x["invalid_calls"]) == (2, 1, 0)
    assert x["structure"]["cls"] == "exact"
    sent = fake_openai.chat_requests[-2:]
    assert sent[0].body["stop"] == ["</graph>", "</answer>"]
    assert sent[0].body["messages"][0]["content"] == GRAIN_SYSTEM
    tool_msg = sent[1].body["messages"][-1]
    assert tool_msg["role"] == "user" and tool_msg["content"].startswith("<result>")
    assert str(rec.answer) in tool_msg["content"]
    assert [s["role"] for s in x["trajectory"]] == ["assistant", "tool", "assistant"]

    # 2-5. calls the tool refuses: each answered by an error <result>, the episode goes on
    bad_calls = {
        "invalid_json": "<graph>{not json</graph>",
        "schema": '<graph>{"problem_type": "shortest_path", "graph": {"type": '
        '"adjacency_list", "data": [], "directed": false, "weighted": true}, '
        '"parameters": {}}</graph>',
        "unknown_problem_type": '<graph>{"problem_type": "quantum_walk", "graph": {"type": '
        '"adjacency_list", "data": {"a": {"b": 1}}, "directed": false, "weighted": true}, '
        '"parameters": {}}</graph>',
        "too_large": "<graph>"
        + json.dumps(
            {
                "problem_type": "shortest_path",
                "graph": {
                    "type": "adjacency_list",
                    "data": {f"n{i}": {f"n{i + 1}": 1} for i in range(3000)},
                    "directed": False,
                    "weighted": True,
                },
                "parameters": {"start": "n0", "end": "n5"},
            }
        )
        + "</graph>",
    }
    for kind, text in bad_calls.items():
        r = _one(fake_openai, data, tmp_path / kind, rec, Reply(text), Reply(answer))
        x = r["extra"]
        assert x["calls"][0]["kind"] == kind, (kind, x["calls"])
        assert x["invalid_calls"] == 1 and r["outcome"] == "strict_correct"
        result_text = fake_openai.chat_requests[-1].body["messages"][-1]["content"]
        assert result_text.startswith("<result>") and kind in result_text, result_text[:300]
        expected_cls = "parse_failure" if kind in ("invalid_json", "schema") else None
        if expected_cls:
            assert x["structure"]["cls"] == expected_cls

    # 6. too many rounds: the model never answers
    r = _one(fake_openai, data, tmp_path / "rounds", rec, default=Reply(f"<graph>{call}</graph>"))
    x = r["extra"]
    assert x["agent_outcome"] == "max_rounds" and x["rounds"] == 6
    assert r["outcome"] == "no_answer" and x["structure"]["cls"] == "exact"

    # 7. </answer> missing (cut by the token limit): the open block is read
    r = _one(fake_openai, data, tmp_path / "unclosed", rec,
             Reply(f"<answer>{rec.answer}", finish_reason="length"))  # fmt: skip
    assert r["outcome"] == "strict_correct" and r["extra"]["agent_outcome"] == "answered"
    assert r["extra"]["structure"] is None  # no tool call at all

    # 8. text after </answer> (a server that ignored stop): dropped and flagged
    r = _one(fake_openai, data, tmp_path / "after", rec,
             Reply(f"{answer} Also <graph>{call}</graph>"))  # fmt: skip
    assert r["outcome"] == "strict_correct" and r["extra"]["cut_after_stop"] == 1
    assert r["extra"]["tool_calls"] == 0

    # 9. two <graph> calls in one turn: only the first runs
    other = json.loads(call)
    other["problem_type"] = "vertex_cover"
    r = _one(fake_openai, data, tmp_path / "two", rec,
             Reply(f"<graph>{call}</graph><graph>{json.dumps(other)}</graph>"),
             Reply(answer))  # fmt: skip
    x = r["extra"]
    assert x["tool_calls"] == 1 and x["calls"][0]["problem_type"] == "shortest_path"
    assert x["cut_after_stop"] == 1 and r["outcome"] == "strict_correct"

    # 10. no tags at all: no answer, never a crash
    r = _one(fake_openai, data, tmp_path / "plain", rec, Reply("The answer is 8."))
    assert r["outcome"] == "no_answer" and r["extra"]["agent_outcome"] == "no_answer"


def test_split_turn_cases() -> None:
    assert split_turn("<graph>{}</graph>tail") == ("<graph>{}</graph>", "graph", True)
    assert split_turn("<graph>{}", stopped=False) == ("<graph>{}", None, False)
    assert split_turn("<answer>3") == ("<answer>3</answer>", "answer", False)
    assert split_turn("<think>hm</think>") == ("<think>hm</think>", None, False)
    assert split_turn("<answer>1</answer><graph>{}</graph>")[1] == "answer"


@pytest.mark.parametrize("mode", ["agent", "agent-tools"])
def test_reference_agent_on_closurebench_plans(mode: str, tmp_path: Path) -> None:
    """Every category's plan of tool calls reaches the reference answer, graph exact."""
    count = 3 * len(CLOSURE_TASKS)  # three instances of every category
    closurebench.generate_split("heldout", seed=0, count=count, out=tmp_path / "c")
    data = tmp_path / "c" / "closure-heldout.jsonl"
    results = _eval_mode(data, tmp_path / "r", mode, "--model", "reader", "--concurrency", "4")
    assert len(results) == count and len({r["category"] for r in results}) == len(CLOSURE_TASKS)
    bad = [(r["category"], r["reason"], r["response"][-200:]) for r in results if not r["strict"]]
    assert not bad, bad[:2]
    assert {r["extra"]["structure"]["cls"] for r in results} == {"exact"}
    assert max(r["extra"]["rounds"] for r in results) <= 6
    cousin = next(r for r in results if r["category"] == "cousin")
    assert cousin["extra"]["tool_calls"] >= 1


def test_agent_on_a_server_that_refuses_stop(
    grit_data: tuple[Path, list[Any]], tmp_path: Path
) -> None:
    """o-series models refuse ``stop``: it is dropped once, recorded, and replies are cut here."""
    from fake_openai_server import FakeOpenAIServer

    data, records = grit_data
    rec = next(r for r in records if r.task == "shortest_path")
    call = json.dumps(reader_call(rec))
    with FakeOpenAIServer(reasoning_model=True) as fake:
        fake.script(
            Reply(f"<graph>{call}</graph><result>invented</result><answer>0</answer>"),
            Reply(f"<answer>{rec.answer}</answer>"),
        )
        out = tmp_path / "strict"
        (result,) = _eval(
            data, out, "--model", "o3", "--base-url", fake.base_url, "--tasks", "shortest_path",
            "--limit", "1", "--temperature", "none", "--max-completion-tokens", "512",
        )  # fmt: skip
        bodies = [r.body for r in fake.chat_requests]
    assert result["outcome"] == "strict_correct", result["reason"]
    x = result["extra"]
    assert x["tool_calls"] == 1 and x["cut_after_stop"] == 1
    assert "stop" in bodies[0] and all("stop" not in b for b in bodies[1:])
    run = json.loads((out / "run.json").read_text())
    assert [a["parameter"] for a in run["adaptations"]] == ["stop"]


def test_agent_tools_reference_and_native_calls_over_http(
    grit_data: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    """agent-tools: the graph tool as an OpenAI function; calls answered by tool messages."""
    data, records = grit_data
    results = _eval_mode(data, tmp_path / "ref", "agent-tools", "--model", "reader")
    assert all(r["strict"] for r in results) and len(results) == 48
    assert all(r["extra"]["structure"]["cls"] == "exact" for r in results)

    rec = next(r for r in records if r.task == "shortest_path")
    call = json.dumps(reader_call(rec))
    fake_openai.script(
        Reply("<think>calling</think>", finish_reason="tool_calls",
              tool_calls=(("graph_tool", call), ("other_fn", "{}"))),
        Reply(f"<answer>{rec.answer}</answer>"),
    )  # fmt: skip
    (r,) = _eval_mode(
        data, tmp_path / "http", "agent-tools", "--model", "m", "--base-url",
        fake_openai.base_url, "--tasks", "shortest_path", "--limit", "1",
    )  # fmt: skip
    assert r["outcome"] == "strict_correct"
    x = r["extra"]
    assert x["tool_calls"] == 2 and x["invalid_calls"] == 1
    assert [c["kind"] for c in x["calls"]] == ["ok", "unknown_function"]
    first, second = (req.body for req in fake_openai.chat_requests[-2:])
    assert first["tools"][0]["function"]["name"] == "graph_tool" and "stop" not in first
    tool_msgs = [m for m in second["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_msgs] == ["call_0", "call_1"]
    assert str(rec.answer) in tool_msgs[0]["content"]
    assert "unknown_function" in tool_msgs[1]["content"]
    assert second["messages"][2]["tool_calls"][0]["function"]["name"] == "graph_tool"


def _eval_mode(data: Path, out: Path, mode: str, *args: str) -> list[dict[str, Any]]:
    res = CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(out), "--no-progress", "--mode", mode, *args]
    )
    assert res.exit_code == 0, res.output
    return list(iter_results(out / "results.jsonl"))


def test_reference_agent_on_ood_views(tmp_path: Path) -> None:
    """OOD scenarios and unseen names: the reader's graphs are still exact."""
    path, _, _ = write_split(GritConfig(split="ood", seed=4, count=6, n_max=12), tmp_path / "d")
    results = _eval(path, tmp_path / "r", "--model", "reader", "--concurrency", "4")
    assert len(results) == 48 and all(r["strict"] for r in results)
    assert {r["extra"]["structure"]["cls"] for r in results} == {"exact"}


# --------------------------------------------------------------- issue 21: final answers

#: GRAIN Table 14 (the paper's shortest-path case study), its turns verbatim from the
#: paper's text. Only the "⬇" glyph the PDF extraction puts before a code listing is left
#: out of the <graph> call (it is no part of the model's JSON).
TABLE_14_QUERY = (
    "My younger sibling isn’t feeling well, and the nearest hospital is at Zaphrel Summit. "
    "Right now we’re at home, near an intersection I’ll call Xundral View. […] I checked a "
    "city map and noted down the walking distances: Knights Market to Xundral View is 7 km… "
    "[narrative omitted for brevity] … Dragons Gate to Trelvon Bay is 7 km. Starting from "
    "Xundral View, what route should we walk to reach Zaphrel Summit while minimizing the "
    "total walking distance?"
)
TABLE_14_REASONING = (
    "<think> From an application perspective, this requires graph theory tool calculation. "
    "Graph parameters identified: • Nodes: 9 distinct locations (e.g., Knights Market, "
    "Xundral View). • Goal: Compute shortest path from Xundral View to Zaphrel Summit. • Edge "
    "Extraction: Parsing narrative to build adjacency list. Tool call explanation: I will "
    "input graph information in JSON format, including nodes, edges, start and end points. "
    "</think>"
)
TABLE_14_ACTION = (
    '<graph> { "problem_type": "shortest_path", "graph": { "type": "adjacency_list", '
    '"data": { "Knights Market": { "Xundral View": 7, "Skyline Gardens": 1, "Dragons Gate": '
    '3, "Trelvon Bay": 6 }, "Xundral View": { "Trelvon Bay": 1 }, "Draycon Arcade": { '
    '"Copper Clock Square": 2, "Vorlen Heights": 8 }, "Copper Clock Square": { "Trelvon '
    'Bay": 7, "Vorlen Heights": 5, "Zaphrel Summit": 8 }, "Granite Plaza": { "Trelvon Bay": '
    '8 }, "Dragons Gate": { "Trelvon Bay": 7 }, "Trelvon Bay": {}, "Zaphrel Summit": {} }, '
    '"directed": false, "weighted": true }, "parameters": { "start": "Xundral View", "end": '
    '"Zaphrel Summit", "algorithm": "dijkstra" } } </graph>'
)
TABLE_14_FINAL = (
    "<think> Tool call successful. Calculation result: shortest path contains 3 nodes… total "
    "weight 16. </think> Answer: 16"
)


def _table14_data(grit_data: tuple[Path, list[Any]], out: Path) -> tuple[Path, str]:
    """A one-instance GRIT file holding Table 14's graph and question (answer 16)."""
    _, records = grit_data
    base = _record(records).to_json()
    payload = json.loads(TABLE_14_ACTION.removeprefix("<graph>").removesuffix("</graph>"))
    data = payload["graph"]["data"]
    names = sorted({*data, *(v for nbrs in data.values() for v in nbrs)})
    index = {name: k for k, name in enumerate(names)}
    edges = [[index[u], index[v], w] for u, nbrs in data.items() for v, w in nbrs.items()]
    src, dst = index["Xundral View"], index["Zaphrel Summit"]
    path = [src, index["Trelvon Bay"], index["Copper Clock Square"], dst]
    base.update(
        id="grit-table14", question=TABLE_14_QUERY, answer=16, n=len(names), names=names,
        graph={"directed": False, "weighted": True, "n": len(names), "edges": edges},
        params={"source": src, "target": dst}, solution=path, aliases={},
        naming="semantic", view="standard/semantic",
    )  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    file = out / "table14.jsonl"
    file.write_text(json.dumps(base) + "\n")
    return file, base["id"]


def test_table14_trajectory_is_scored_correct_end_to_end(
    grit_data: tuple[Path, list[Any]], fake_openai: Any, tmp_path: Path
) -> None:
    """The paper's own episode: <think> + <graph>, the tool's <result>, "Answer: 16"."""
    data, rid = _table14_data(grit_data, tmp_path / "d")
    fake_openai.script(Reply(f"{TABLE_14_REASONING}\n{TABLE_14_ACTION}"), Reply(TABLE_14_FINAL))
    (r,) = _eval(data, tmp_path / "r", "--model", "m", "--base-url", fake_openai.base_url)
    assert r["id"] == rid and r["outcome"] == "strict_correct", r["reason"]
    x = r["extra"]
    assert x["agent_outcome"] == "answered" and x["answer_form"] == "answer_line"
    assert (x["rounds"], x["tool_calls"], x["invalid_calls"]) == (2, 1, 0)
    assert x["calls"][0]["problem_type"] == "shortest_path"
    result = x["trajectory"][1]["text"]
    assert result.startswith("<result>") and "16" in result
    assert x["trajectory"][2]["text"] == TABLE_14_FINAL
    user = fake_openai.chat_requests[-2].body["messages"][1]
    assert user == {"role": "user", "content": TABLE_14_QUERY}

    # --strict-protocol: the paper's untagged final turn is no answer
    fake_openai.script(Reply(f"{TABLE_14_REASONING}\n{TABLE_14_ACTION}"), Reply(TABLE_14_FINAL))
    (s,) = _eval(
        data, tmp_path / "s", "--model", "m", "--base-url", fake_openai.base_url,
        "--strict-protocol",
    )  # fmt: skip
    assert s["outcome"] == "no_answer" and s["extra"]["answer_form"] is None
    assert "--strict-protocol" in s["reason"] and "answer_line" in s["reason"]
    run = json.loads((tmp_path / "s" / "run.json").read_text())
    assert run["agent"]["strict_protocol"] is True and run["agent"]["answer_forms"] == ["tag"]


@pytest.mark.parametrize(
    ("final", "form"),
    [
        ("<think>done</think><answer>{a}</answer>", "tag"),
        ("<think>done</think><answer>so \\boxed{{{a}}}</answer>", "tag"),
        ("<think>done</think> The cost is \\boxed{{{a}}}.", "boxed"),
        ("<think>done</think>\nAnswer: {a}", "answer_line"),
        ("<think>done</think>\n**Final Answer:** {a}.", "answer_line"),
    ],
)
@pytest.mark.parametrize("strict", [False, True])
def test_each_final_answer_form(
    grit_data: tuple[Path, list[Any]],
    fake_openai: Any,
    tmp_path: Path,
    final: str,
    form: str,
    strict: bool,
) -> None:
    """Every paper form ends the episode correct; --strict-protocol keeps the tag only."""
    data, records = grit_data
    rec = _record(records)
    call = json.dumps(reader_call(rec))
    fake_openai.script(
        Reply(f"<think>read</think><graph>{call}</graph>"),
        Reply(final.format(a=rec.answer)),
    )
    flags = ["--strict-protocol"] if strict else []
    (r,) = _eval(
        data, tmp_path / "r", "--model", "m", "--base-url", fake_openai.base_url,
        "--tasks", "shortest_path", "--limit", "1", *flags,
    )  # fmt: skip
    if strict and form != "tag":
        assert r["outcome"] == "no_answer" and r["extra"]["agent_outcome"] == "no_answer"
        assert r["extra"]["answer_form"] is None
    else:
        assert r["outcome"] == "strict_correct", r["reason"]
        assert r["extra"]["answer_form"] == form


def test_read_turn_precedence() -> None:
    """A <graph> call wins over any answer text; reasoning is never read for an answer."""
    from closurebench.evaluate.modes.agent import read_turn

    call = read_turn('<think>x</think> Answer: 3\n<graph>{"a": 1}</graph>')
    assert call.kind == "graph" and call.form is None
    assert read_turn("Answer: 3 <graph>{", stopped=False).kind is None  # a cut call
    assert read_turn("<think>Answer: 3</think> I could not decide.").kind is None
    assert read_turn("<think>Answer: 3").kind is None  # still thinking
    assert read_turn("<answer>5</answer> Answer: 3").answer == "<answer>5</answer>"
    both = read_turn("Answer: \\boxed{7}")
    assert (both.form, both.answer) == ("boxed", "\\boxed{7}")
    last = read_turn("Answer: 1\nAnswer: 2")
    assert last.answer == "<answer>2</answer>"
    assert read_turn("The answer is 8.").kind is None
    assert read_turn("Answer:   ").kind is None


# --------------------------------------------------------------- issue 21: budgets


@pytest.fixture(scope="module")
def tsp40(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    """A GRIT TSP graph of 40 nodes (8 views); its first view."""
    out = tmp_path_factory.getbasetemp() / "grit-tsp40"
    cfg = GritConfig(split="test", seed=3, count=1, tasks=("tsp",), n_min=40, n_max=40)
    path, _, _ = write_split(cfg, out)
    rec = closurebench.load_instances(path)[0]
    assert rec.n == 40
    return path, rec


def test_a_6k_token_call_on_a_40_node_tsp_completes_under_the_defaults(
    tsp40: tuple[Path, Any], fake_openai: Any, tmp_path: Path
) -> None:
    """Each call may use the remaining 12,000-token budget: a ~6 k-token <graph> fits."""
    data, rec = tsp40
    call = json.dumps(reader_call(rec), indent=8)  # ~20 k characters, ~6 k tokens
    assert len(call) > 18_000
    fake_openai.script(
        Reply(f"<think>building</think><graph>{call}</graph>", completion_tokens=6_000),
        Reply(f"<think>ok</think><answer>{rec.answer}</answer>", completion_tokens=40),
    )
    (r,) = _eval(
        data, tmp_path / "r", "--model", "m", "--base-url", fake_openai.base_url, "--limit", "1"
    )
    assert r["outcome"] == "strict_correct", r["reason"]
    x = r["extra"]
    assert x["agent_outcome"] == "answered" and x["calls"][0]["kind"] == "ok"
    assert x["budget_tokens"] == 6_040 and r["usage"]["completion_tokens"] == 6_040
    first, second = (q.body for q in fake_openai.chat_requests[-2:])
    assert first["max_tokens"] == 12_000 and second["max_tokens"] == 6_000
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["settings"]["max_tokens"] == 12_000
    agent = run["agent"]
    assert (agent["max_rounds"], agent["max_completion_tokens"]) == (6, 12_000)
    assert agent["max_result_chars"] == 8_000 and agent["call_max_tokens"] is None


def test_budget_knobs_cap_calls_and_never_overshoot(
    tsp40: tuple[Path, Any], fake_openai: Any, tmp_path: Path
) -> None:
    """A spent budget ends the episode before another call; knobs land in run.json."""
    data, rec = tsp40
    call = json.dumps(reader_call(rec))
    fake_openai.script(
        Reply(f"<graph>{call}</graph>", completion_tokens=3_000),
        Reply(f"<graph>{call}</graph>", completion_tokens=2_000),
        default=Reply(f"<answer>{rec.answer}</answer>"),
    )
    (r,) = _eval(
        data, tmp_path / "r", "--model", "m", "--base-url", fake_openai.base_url, "--limit", "1",
        "--agent-max-tokens", "5000", "--agent-max-calls", "4", "--agent-max-result-chars",
        "40", "--max-tokens", "4000",
    )  # fmt: skip
    x = r["extra"]
    assert x["agent_outcome"] == "token_limit" and r["outcome"] == "no_answer"
    assert x["rounds"] == 2 and x["budget_tokens"] == 5_000
    bodies = [q.body for q in fake_openai.chat_requests[-2:]]
    assert [b["max_tokens"] for b in bodies] == [4_000, 2_000]  # min(cap, what is left)
    result = bodies[1]["messages"][-1]["content"]
    assert "[... cut ...]" in result and len(result) < 40 + 40
    run = json.loads((tmp_path / "r" / "run.json").read_text())
    assert run["settings"]["max_tokens"] == 4_000
    assert run["agent"]["max_rounds"] == 4 and run["agent"]["call_max_tokens"] == 4_000
    assert run["agent"]["max_completion_tokens"] == 5_000


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--mode", "agent", "--agent-max-calls", "0"], "--agent-max-calls must be"),
        (["--mode", "agent", "--agent-max-tokens", "-3"], "--agent-max-tokens must be"),
        (["--mode", "cot", "--strict-protocol"], "--strict-protocol applies to the agent"),
        (["--mode", "direct", "--agent-max-tokens", "9"], "--agent-max-tokens applies"),
    ],
)
def test_agent_knobs_are_checked(
    grit_data: tuple[Path, list[Any]], tmp_path: Path, args: list[str], says: str
) -> None:
    data, _ = grit_data
    res = CliRunner().invoke(
        EVAL_APP, [str(data), "--out", str(tmp_path / "r"), "--no-progress", "--model",
                   "reader", *args],
    )  # fmt: skip
    assert res.exit_code == 1 and says in res.output, res.output
