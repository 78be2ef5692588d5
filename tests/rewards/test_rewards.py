"""The RL rewards (issue 22, item 2) on hand-written completions, without TRL or torch."""

from __future__ import annotations

import json
import pickle
from typing import Any

import pytest

from closurebench.errors import ConfigError
from closurebench.generate.closure import ClosureConfig
from closurebench.generate.closure import generate_records as closure_records
from closurebench.generate.grit import GritConfig, generate_records
from closurebench.generate.io import canonical_json
from closurebench.schema import ClosureInstance, GritInstance
from closurebench.train.rewards import (
    AnswerReward,
    FormatReward,
    GatedReward,
    ProgramReward,
    StructureReward,
    read_episode,
    score_completion,
)


@pytest.fixture(scope="module")
def mixed() -> GritInstance:
    """A shortest-path view with aliases (mixed naming), weighted, several edges."""
    recs = generate_records(
        GritConfig(split="test", seed=3, count=1, tasks=("shortest_path",), n_max=10)
    )[0]
    rec = next(r for r in recs if r.naming == "mixed" and r.aliases)
    assert rec.graph.weighted and len(rec.graph.edges) >= 5
    return rec


def _truth(rec: GritInstance | ClosureInstance) -> str:
    return canonical_json(rec.to_json())


def _call(rec: GritInstance, drop: int | None = None, rename: dict[str, str] | None = None) -> str:
    """The exact ``<graph>`` call of ``rec`` (optionally without edge ``drop``)."""
    rename = rename or {}
    names = [rename.get(x, x) for x in rec.names]
    data: dict[str, dict[str, int]] = {name: {} for name in names}
    for i, (u, v, w) in enumerate(rec.graph.edges):
        if i != drop:
            data[names[u]][names[v]] = w
    source, target = rec.params["source"], rec.params["target"]
    assert isinstance(source, int) and isinstance(target, int)
    call = {
        "problem_type": "shortest_path",
        "graph": {"type": "adjacency_list", "data": data, "directed": rec.graph.directed,
                  "weighted": True},
        "parameters": {"start": names[source], "end": names[target]},
    }  # fmt: skip
    return f"<think>I read the graph.</think><graph>{json.dumps(call)}</graph>"


def _episode(rec: GritInstance, answer: Any, **kw: Any) -> str:
    return f"{_call(rec, **kw)}<result>\nTotal Length: {answer}\n</result><answer>{answer}</answer>"


def test_valid_and_correct_gets_one_plus_s_inv(mixed: GritInstance) -> None:
    gated = GatedReward()
    out = gated(completions=[_episode(mixed, mixed.answer)], ground_truth=[_truth(mixed)])
    assert out == [2.0]  # r_ans 1 + lambda_inv * s_inv 1
    assert AnswerReward()(
        completions=[_episode(mixed, mixed.answer)], ground_truth=[_truth(mixed)]
    ) == [1.0]


def test_valid_and_wrong_keeps_the_structure_credit(mixed: GritInstance) -> None:
    assert isinstance(mixed.answer, int)
    parts = score_completion(mixed, _episode(mixed, mixed.answer + 1))
    assert parts.valid and not parts.correct and parts.s_inv == 1.0
    assert parts.gated() == 1.0
    assert parts.gated(lambda_inv=0.5) == 0.5


def test_one_edge_missing_gives_m_minus_one_over_m(mixed: GritInstance) -> None:
    m = len(mixed.graph.edges)
    parts = score_completion(mixed, _episode(mixed, mixed.answer, drop=0))
    # by hand: the model's edges are m - 1 of the m true ones, nothing extra: J = (m-1)/m
    assert parts.s_inv == pytest.approx((m - 1) / m)
    assert StructureReward()(
        completions=[_episode(mixed, mixed.answer, drop=0)], ground_truth=[_truth(mixed)]
    ) == [pytest.approx((m - 1) / m)]


def test_aliases_resolve_to_their_node(mixed: GritInstance) -> None:
    alias, node = next(iter(mixed.aliases.items()))
    text = _episode(mixed, mixed.answer, rename={mixed.names[node]: alias})
    parts = score_completion(mixed, text)
    assert parts.valid and parts.correct and parts.s_inv == 1.0


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("The answer is 7.", "no final answer"),
        ("<think>x</think> Answer: 7", "untagged answer_line"),
        ("<graph>{}</graph><result>r</result>", "no final answer"),
        ("<graph>{}</graph>", "ends on a tool call"),
    ],
)
def test_invalid_tags_get_rho_err(mixed: GritInstance, text: str, why: str) -> None:
    parts = score_completion(mixed, text)
    assert not parts.valid and why in parts.reason
    assert GatedReward(rho_err=-0.5)(completions=[text], ground_truth=[_truth(mixed)]) == [-0.5]
    assert FormatReward()(completions=[text], ground_truth=[_truth(mixed)]) == [0.0]


def test_the_paper_untagged_answer_is_valid_when_the_protocol_is_not_strict(
    mixed: GritInstance,
) -> None:
    text = f"{_call(mixed)}<result>\nok\n</result><think>done</think> Answer: {mixed.answer}"
    assert not score_completion(mixed, text).valid
    loose = score_completion(mixed, text, strict_protocol=False)
    assert loose.valid and loose.correct


def test_an_unparsable_graph_makes_the_trajectory_invalid(mixed: GritInstance) -> None:
    text = "<graph>{not json</graph><result>Error</result><answer>3</answer>"
    parts = score_completion(mixed, text)
    assert not parts.valid and "does not parse" in parts.reason and parts.s_inv == 0.0
    assert GatedReward()(completions=[text], ground_truth=[_truth(mixed)]) == [-1.0]


def test_conversational_completions_with_native_tool_calls(mixed: GritInstance) -> None:
    call = _call(mixed).split("<graph>")[1].removesuffix("</graph>")
    convo: list[dict[str, Any]] = [
        {"role": "assistant", "content": "", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "graph_tool", "arguments": call}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "Total Length: 5"},
        {"role": "assistant", "content": f"<answer>{mixed.answer}</answer>"},
    ]  # fmt: skip
    parts = score_completion(mixed, convo, mode="agent-tools")
    assert parts.valid and parts.correct and parts.s_inv == 1.0
    # A typed function call (the environment's methods) is read the same way.
    args = json.loads(call)
    typed = {"graph": args["graph"]["data"], "directed": False, **args["parameters"]}
    convo[0]["tool_calls"][0]["function"] = {"name": "shortest_path", "arguments": typed}
    assert score_completion(mixed, convo, mode="agent-tools").s_inv == 1.0
    convo[0]["tool_calls"][0]["function"] = {"name": "delete_all", "arguments": "{}"}
    bad = score_completion(mixed, convo, mode="agent-tools")
    assert not bad.valid and "no function 'delete_all'" in bad.reason


def test_single_turn_modes_and_a_failing_program(tmp_path: Any) -> None:
    rec = closure_records(ClosureConfig(count=1, categories=("reach_then_count",), seed=5))[0]
    truth = _truth(rec)
    good = json.dumps({"answer": rec.answer})
    answer = AnswerReward("direct")
    assert answer(completions=[good, '{"answer": -5}', "no json"], ground_truth=[truth] * 3) == [
        1.0,
        0.0,
        0.0,
    ]
    assert FormatReward("direct")(completions=[good, "no json"], ground_truth=[truth] * 2) == [
        1.0,
        0.0,
    ]
    runs = ProgramReward("program-python")
    ok = f"```python\nprint({rec.answer})\n```"
    fails = "```python\nraise SystemExit(3)\n```"
    assert runs(completions=[ok, fails, "no program"], ground_truth=[truth] * 3) == [
        1.0,
        0.0,
        0.0,
    ]
    parts = score_completion(rec, fails, mode=runs._mode)
    assert parts.valid and parts.executed is False and not parts.correct
    # Picklable (TRL may copy reward functions to workers); the sandbox choice survives.
    again = pickle.loads(pickle.dumps(runs))
    assert again(completions=[ok], ground_truth=[truth]) == [1.0]


def test_parts_are_logged_through_trl_hooks(mixed: GritInstance) -> None:
    metrics: dict[str, float] = {}
    extra: dict[str, list[Any]] = {}
    texts = [_episode(mixed, mixed.answer), "no tags"]
    GatedReward()(
        prompts=["p", "p"],
        completions=texts,
        completion_ids=[[1], [2]],
        ground_truth=[_truth(mixed)] * 2,
        log_metric=metrics.__setitem__,
        log_extra=extra.__setitem__,
        trainer_state=None,
        task=["shortest_path"] * 2,
    )
    assert metrics == {
        "closurebench/valid": 0.5,
        "closurebench/r_ans": 0.5,
        "closurebench/s_inv": 0.5,
    }
    assert extra["closurebench_reason"][0] == "" and extra["closurebench_reason"][1]


def test_bad_configuration_is_a_clear_error(mixed: GritInstance) -> None:
    with pytest.raises(ConfigError, match="unknown mode 'agnet'"):
        GatedReward("agnet")
    with pytest.raises(ConfigError, match="submits none"):
        StructureReward("direct")
    with pytest.raises(ConfigError, match="rho_err='x' must be a number"):
        GatedReward(rho_err="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigError, match="2 completions but 1 ground_truth"):
        GatedReward()(completions=["a", "b"], ground_truth=[_truth(mixed)])
    with pytest.raises(ConfigError, match="ground_truth column"):
        GatedReward()(completions=["a"])


def test_read_episode_splits_text_at_injected_results() -> None:
    ep = read_episode("<graph>{}</graph><result>a</result><graph>{}</graph><result>b</result>"
                      "<answer>1</answer>")  # fmt: skip
    assert len(ep.calls) == 2 and ep.answer == "<answer>1</answer>" and not ep.problem
    assert (
        "neither a tool call"
        in read_episode("just talk<result>x</result><answer>1</answer>").problem
    )
