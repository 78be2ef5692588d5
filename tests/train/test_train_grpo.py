"""``closurebench train grpo``: GRPO / ARPO on TRL with the gated reward, on CPU.

A tiny local chat model (``tiny_model.py``, no download) trains 2 steps each way:
single-turn with the gated reward called on the trainer's real generations; through the
graph-tool environment (a fresh naming view per group, TRL's tool-call loop running the
environment's methods, the reward scored against the drawn view); with ARPO's partial
rollouts (groups that share prefixes). Plus: a bad recipe key is one error before any
model loads, ``--resume`` continues a run, and the curriculum's schedule.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from closurebench.cli import app
from closurebench.errors import ConfigError
from closurebench.generate.grit import GritConfig, generate_records
from closurebench.jsonl import canonical_json
from closurebench.schema import GritInstance
from closurebench.schema.training import instance_from_ground_truth
from closurebench.train.export import grpo_records
from closurebench.train.grpo import (
    ArpoSettings,
    GrpoRecipe,
    TrainingReward,
    build_trainer,
    load_grpo_recipe,
    plan_schedule,
)

pytestmark = pytest.mark.usefixtures("one_torch_thread_module")  # a tiny model: see conftest
runner = CliRunner()


@pytest.fixture(scope="module")
def records() -> list[Any]:
    """Two small GRIT train graphs (n <= 5), 8 views each."""
    return generate_records(GritConfig(split="train", seed=0, count=2, n_max=5))[0]


@pytest.fixture(scope="module")
def rows(records: list[Any]) -> list[dict[str, Any]]:
    """Their GRPO records, ``direct`` prompts."""
    return [r.to_json() for r in grpo_records(records, "direct")]


@pytest.fixture(scope="module")
def tiny(
    tmp_path_factory: pytest.TempPathFactory, records: list[Any], rows: list[dict[str, Any]]
) -> Path:
    """A tiny chat model whose tokenizer knows the prompts' text, the tool prompts' too."""
    pytest.importorskip("trl")
    from tiny_model import build_tiny_chat_model, tool_chat_texts
    from transformers.utils import get_json_schema

    from closurebench.tools import FUNCTIONS

    texts = [m["content"] for r in rows[:8] for m in r["prompt"]]
    schemas = [get_json_schema(fn) for fn in FUNCTIONS.values()]
    agent = [r.to_json()["prompt"] for r in grpo_records(records[:1])]
    texts += tool_chat_texts([(messages, schemas) for messages in agent])
    return build_tiny_chat_model(tmp_path_factory.mktemp("tiny") / "m", texts, vocab_size=4000)


@pytest.fixture(scope="module")
def tiny_tools(tmp_path_factory: pytest.TempPathFactory, tiny: Path) -> Path:
    """The tiny model with a chat template TRL can run tool calls through (Qwen 2.5's)."""
    from tiny_model import with_tool_template

    return with_tool_template(tiny, tmp_path_factory.mktemp("tiny-tools") / "m")


def _recipe(model: Path, out: Path, **grpo: Any) -> GrpoRecipe:
    return load_grpo_recipe(
        None,
        overrides={
            "model": {"name": str(model)},
            "lora": {"r": 4, "alpha": 8, "target_modules": ["q_proj", "v_proj"]},
            "optim": {"batch_size": 2, "max_steps": 2, "learning_rate": 1e-3},
            "output": {"dir": str(out)},
            "grpo": {"num_generations": 4, "max_completion_length": 24, **grpo},
        },
    )


class Recorder:
    """Wraps the training reward and keeps every call's keyword arguments."""

    __name__ = "closurebench_gated"

    def __init__(self, reward: TrainingReward) -> None:
        self.reward = reward
        self.calls: list[dict[str, Any]] = []

    def __call__(self, **kwargs: Any) -> list[float]:
        envs = kwargs.get("environments")
        if envs is not None:  # TRL resets the same instances for the next batch: keep copies
            kwargs["environments"] = [copy.copy(e) for e in envs]
        self.calls.append(kwargs)
        return self.reward(**kwargs)


def _metrics(out: Path) -> list[dict[str, Any]]:
    lines = (out / "metrics.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_grpo_single_turn_scores_real_generations(
    tiny: Path, rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    recipe = _recipe(tiny, tmp_path / "run")
    rec = Recorder(TrainingReward())
    trainer, schedule = build_trainer(recipe, rows, reward=rec, progress=False)
    trainer.train()
    assert trainer.state.global_step == 2 and schedule.steps == 2
    assert len(rec.calls) == 2  # one generation batch per step: 2 prompts x 4 completions
    tok = trainer.processing_class
    truths = {r["ground_truth"] for r in rows}
    for call in rec.calls:
        comps, ids = call["completions"], call["completion_ids"]
        assert len(comps) == len(ids) == 8
        # the completions are the trainer's own samples, decoded
        assert [c[0]["content"] for c in comps] == tok.batch_decode(ids, skip_special_tokens=True)
        assert set(call["ground_truth"]) <= truths and call["mode"] == ["direct"] * 8
        assert len(set(call["ground_truth"])) == 2  # two prompts, four completions each
        assert call["ground_truth"][:4] == [call["ground_truth"][0]] * 4
    logged = [m for m in _metrics(tmp_path / "run") if "closurebench/valid" in m]
    assert len(logged) == 2 and all(m["curriculum_stage"] == "all" for m in logged)
    assert all(m["rewards/closurebench_gated/mean"] == -1.0 for m in logged)  # gibberish


def _view_call(env: Any) -> dict[str, Any]:
    """The correct ``shortest_path`` call for the view ``env`` drew, in its names."""
    rec = env.record
    names, g = rec.names, rec.graph
    adj: dict[str, dict[str, int]] = {n: {} for n in names}
    for u, v, w in g.edges:
        adj[names[u]][names[v]] = w
    args = {
        "graph": adj,
        "start": names[rec.params["source"]],
        "end": names[rec.params["target"]],
        "directed": g.directed,
        "weighted": g.weighted,
    }
    return {"name": "shortest_path", "arguments": args}


def _script(model: Any, holder: list[Any]) -> None:
    """Make ``model.generate`` answer like a perfect agent (first turn: the correct tool
    call for its environment's view; after the tool's answer: ``<answer>``), so the tool
    loop, the environment and the reward run end to end on real token ids."""
    import torch

    tok = holder[1]

    def generate(input_ids: Any, attention_mask: Any = None, **kwargs: Any) -> Any:
        width = input_ids.shape[1]
        rows = []
        for j in range(input_ids.shape[0]):
            text = tok.decode(input_ids[j], skip_special_tokens=False)
            env = next(e for e in holder[0].environments if e.record.question in text)
            if "<tool_response>" in text:
                reply = f"<answer>{env.record.answer}</answer>"
            else:
                reply = "<tool_call>\n" + json.dumps(_view_call(env)) + "\n</tool_call>"
            rows.append(tok(reply + "<|im_end|>", add_special_tokens=False)["input_ids"])
        longest = max(map(len, rows))
        new = torch.full((len(rows), width + longest), tok.pad_token_id, dtype=input_ids.dtype)
        new[:, :width] = input_ids
        for j, r in enumerate(rows):
            new[j, width : width + len(r)] = torch.tensor(r)
        return new

    model.generate = generate


def test_grpo_through_the_tool_environment(tiny_tools: Path, tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import get_json_schema

    from closurebench.tools import FUNCTIONS, run_tool

    recs = generate_records(
        GritConfig(split="train", seed=1, count=2, n_max=5, tasks=("shortest_path",))
    )[0]
    data = [r.to_json() for r in grpo_records(recs)]  # agent prompts (replaced by the env's)
    recipe = _recipe(
        tiny_tools,
        tmp_path / "run",
        mode="tools",
        tools=["shortest_path"],
        max_completion_length=1200,
        max_tool_calls=2,
    )
    assert recipe.grpo.mode == "tools"
    model = AutoModelForCausalLM.from_pretrained(tiny_tools)
    tok = AutoTokenizer.from_pretrained(tiny_tools)
    holder: list[Any] = [None, tok]
    _script(model, holder)
    rec = Recorder(TrainingReward(mode="agent-tools"))
    trainer, _ = build_trainer(recipe, data, reward=rec, model=model, tokenizer=tok)
    holder[0] = trainer
    assert [t.__name__ for t in trainer.tools] == ["shortest_path"]
    loops: list[tuple[list[list[int]], list[list[int]]]] = []
    tool_loop = trainer._tool_call_loop

    def recording_loop(*args: Any, **kwargs: Any) -> Any:
        out = tool_loop(*args, **kwargs)
        loops.append((out[0], out[2]))  # tool_mask, completion_ids
        return out

    trainer._tool_call_loop = recording_loop
    trainer.train()
    assert trainer.state.global_step == 2 and len(rec.calls) == 2
    # The RL loss covers only the model's tokens: TRL's loss mask is completion_mask x
    # tool_mask, and tool_mask is 0 exactly on the tool's answers.
    assert len(loops) == 2
    for masks, completions in loops:
        for mask, ids in zip(masks, completions, strict=True):
            assert len(mask) == len(ids) and 0 in mask and mask[0] == 1
            mine = tok.decode([t for t, m in zip(ids, mask, strict=True) if m])
            theirs = tok.decode([t for t, m in zip(ids, mask, strict=True) if not m])
            assert "<tool_call>" in mine and "<answer>" in mine
            assert "Total Length" not in mine and "<tool_response>" not in mine
            assert "Total Length" in theirs and "<tool_call>" not in theirs
            assert "<answer>" not in theirs
    by_id = {r.id: r for r in recs}
    for call in rec.calls:
        envs = call["environments"]
        assert len(envs) == 8 and len(call["completions"]) == 8
        for i, env in enumerate(envs):
            src = by_id[env.source_id]
            view = env.record
            # reset ran and drew a fresh view of the same graph and query
            assert view.graph == src.graph and view.params == src.params
            assert view.seed.surface != src.seed.surface and view.id != src.id
            assert call["prompts"][i][-1]["content"] == view.question
            assert env.ground_truth == canonical_json(view.to_json())
            # the group shares its view
            assert envs[i - i % 4].record == view
            # the tool loop ran the environment's method with the model's call
            assert [c["name"] for c in env.calls] == ["shortest_path"]
            turns = call["completions"][i]
            assert turns[0]["tool_calls"][0]["function"]["name"] == "shortest_path"
            assert turns[1]["role"] == "tool" and f"Total Length: {view.answer}" in str(
                turns[1]["content"]
            )
        parts = rec.reward.reward("agent-tools").parts(
            call["completions"], rec.reward.truths(call["ground_truth"], envs)
        )
        # scored against the drawn view: valid, correct, the submitted graph exact
        assert [(p.valid, p.correct, p.s_inv) for p in parts] == [(True, True, 1.0)] * 8
        renamed = [i for i, e in enumerate(envs) if e.record.names != by_id[e.source_id].names]
        if renamed:  # against the row's own view the names do not match
            wrong = rec.reward.reward("agent-tools").parts(
                [call["completions"][i] for i in renamed],
                [call["ground_truth"][i] for i in renamed],
            )
            assert all(p.s_inv < 1.0 for p in wrong)
    logged = [m for m in _metrics(tmp_path / "run") if "closurebench/s_inv" in m]
    assert [m["closurebench/s_inv"] for m in logged] == [1.0, 1.0]
    assert [m["reward"] for m in logged] == [2.0, 2.0]  # r_ans + lambda_inv * s_inv
    # the methods are the graph tool's functions: same schemas, the tool's answers
    env = trainer.environments[0]
    for name in FUNCTIONS:
        params = get_json_schema(FUNCTIONS[name])["function"]["parameters"]
        method = getattr(type(env), name, None)
        if method is not None:
            assert get_json_schema(getattr(env, name))["function"]["parameters"] == params
    roads = {"A": {"B": 4, "C": 1}, "C": {"B": 2}}
    assert env.shortest_path(roads, "A", "B") == FUNCTIONS["shortest_path"](roads, "A", "B")["text"]
    from closurebench.train.environment import environment_factory

    full: Any = environment_factory(0, 1)()  # the tool methods are set on its class
    call_obj = {
        "problem_type": "shortest_path",
        "graph": {"type": "adjacency_list", "data": roads, "directed": False, "weighted": True},
        "parameters": {"start": "A", "end": "B"},
    }
    assert full.graph_tool(**call_obj) == run_tool(call_obj).text
    assert (
        full.vertex_cover({"a": ["b", "c"]}) == FUNCTIONS["vertex_cover"]({"a": ["b", "c"]})["text"]
    )
    assert [c["name"] for c in full.calls] == ["graph_tool", "vertex_cover"]


def test_arpo_branches_share_prefixes(
    tiny: Path, rows: list[dict[str, Any]], tmp_path: Path
) -> None:
    recipe = _recipe(
        tiny,
        tmp_path / "run",
        algorithm="arpo",
        arpo={
            "initial_rollouts": 2,
            "beam_size": 2,
            "branch_probability": 1.0,
            "entropy_weight": 0.0,
        },
    )
    rec = Recorder(TrainingReward())
    trainer, _ = build_trainer(recipe, rows, reward=rec, progress=False)
    trainer.train()
    assert trainer.state.global_step == 2 and len(rec.calls) == 2
    for call in rec.calls:
        ids, kinds, shared = call["completion_ids"], call["arpo_kind"], call["arpo_shared"]
        assert len(ids) == len(call["completions"]) == 8  # 2 groups of num_generations=4
        for g in (0, 4):
            assert kinds[g : g + 4] == ["initial", "initial", "branch", "branch"]
            branch = ids[g + 2]
            t = shared[g + 2]
            assert t > 0 and shared[g + 3] == t
            # both branches continue one initial rollout's prefix
            parents = [p for p in ids[g : g + 2] if p[:t] == branch[:t]]
            assert parents and ids[g + 3][:t] == branch[:t]
    groups = trainer.rollout_func.last_groups
    assert [len(tree) for tree in groups] == [4, 4]
    for tree in groups:
        for b in tree:
            assert len(b.ids) == len(b.logprobs) == len(b.entropy)
            if b.parent is not None:
                parent = tree[b.parent]
                assert b.ids[: b.shared] == parent.ids[: b.shared]
                assert b.logprobs[: b.shared] == parent.logprobs[: b.shared]
    logged = [m for m in _metrics(tmp_path / "run") if "arpo/branched_fraction" in m]
    assert [m["arpo/branched_fraction"] for m in logged] == [0.5, 0.5]


def _script_two_calls(model: Any, holder: list[Any]) -> list[int]:
    """Make ``model.generate`` an agent that calls the tool twice (the second time after
    the first answer), then answers; return the list of batch sizes it was called with."""
    import torch

    tok = holder[1]
    sizes: list[int] = []

    def generate(input_ids: Any, attention_mask: Any = None, **kwargs: Any) -> Any:
        width = input_ids.shape[1]
        sizes.append(int(input_ids.shape[0]))
        rows = []
        for j in range(input_ids.shape[0]):
            text = tok.decode(input_ids[j], skip_special_tokens=False)
            env = next(e for e in holder[0].environments if e.record.question in text)
            if text.count("<tool_response>") >= 2:
                reply = f"<answer>{env.record.answer}</answer>"
            else:
                reply = "<tool_call>\n" + json.dumps(_view_call(env)) + "\n</tool_call>"
            rows.append(tok(reply + "<|im_end|>", add_special_tokens=False)["input_ids"])
        longest = max(map(len, rows))
        new = torch.full((len(rows), width + longest), tok.pad_token_id, dtype=input_ids.dtype)
        new[:, :width] = input_ids
        for j, r in enumerate(rows):
            new[j, width : width + len(r)] = torch.tensor(r)
        return new

    model.generate = generate
    return sizes


def test_arpo_branches_after_tool_results_in_the_tool_environment(
    tiny_tools: Path, tmp_path: Path
) -> None:
    """ARPO's sampler runs the tool loop itself: it branches at the end of a tool result
    (never inside a turn), a branch replays its prefix's tool calls on its own
    environment, the loss mask is 0 exactly on the tool results, TRL's own tool loop
    does not run again, and the reward scores each completion's own turns."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    recs = generate_records(
        GritConfig(split="train", seed=2, count=2, n_max=5, tasks=("shortest_path",))
    )[0]
    recipe = _recipe(
        tiny_tools,
        tmp_path / "run",
        mode="tools",
        tools=["shortest_path"],
        algorithm="arpo",
        arpo={"branch_probability": 1.0, "entropy_weight": 0.0},
        max_completion_length=1600,
        max_tool_calls=2,
    )
    model = AutoModelForCausalLM.from_pretrained(tiny_tools)
    tok = AutoTokenizer.from_pretrained(tiny_tools)
    holder: list[Any] = [None, tok]
    _script_two_calls(model, holder)
    rec = Recorder(TrainingReward(mode="agent-tools"))
    data = [r.to_json() for r in grpo_records(recs)]
    trainer, _ = build_trainer(recipe, data, reward=rec, model=model, tokenizer=tok)
    holder[0] = trainer
    trl_loop: list[int] = []
    trainer._tool_call_loop = lambda *a, **k: trl_loop.append(1)
    masks: list[Any] = []  # the tool_mask TRL's loss reads (completion_mask x tool_mask)
    generate = trainer._generate

    def recording_generate(*args: Any, **kwargs: Any) -> Any:
        out = generate(*args, **kwargs)
        masks.append(out[2])
        return out

    trainer._generate = recording_generate
    trainer.train()
    assert trainer.state.global_step == 2 and len(rec.calls) == 2
    assert trl_loop == [] and trainer.tools == [] and len(masks) == 2
    end = tok.convert_tokens_to_ids("<|im_end|>")
    for call, tool_mask in zip(rec.calls, masks, strict=True):
        assert call["arpo_kind"] == ["initial", "initial", "branch", "branch"] * 2
        envs, ids_all = call["environments"], call["completion_ids"]
        views = [e.record for e in envs]
        assert views[:4] == [views[0]] * 4 and views[4:] == [views[4]] * 4  # one per group
        for g in (0, 4):
            t = call["arpo_shared"][g + 2]
            parent = ids_all[g]
            # the branch point is the end of the first tool result: the prefix holds one
            # tool call and its whole answer, and the branch goes on from there
            head = str(tok.decode(parent[:t]))
            assert head.count("</tool_call>") == 1 and head.count("</tool_response>") == 1
            assert head.endswith("<|im_start|>assistant\n")
            for k in (2, 3):
                assert ids_all[g + k][:t] == parent[:t] and call["arpo_shared"][g + k] == t
        for i, (ids, mask, turns, env) in enumerate(
            zip(ids_all, tool_mask, call["completion_turns"], envs, strict=True)
        ):
            assert len(mask) == len(ids) and ids[-1] == end
            mine = tok.decode([t for t, m in zip(ids, mask, strict=True) if m])
            theirs = tok.decode([t for t, m in zip(ids, mask, strict=True) if not m])
            assert mine.count("<tool_call>") == 2 and "<answer>" in mine
            assert "Total Length" not in mine and "<tool_response>" not in mine
            assert theirs.count("<tool_response>") == 2 and "<tool_call>" not in theirs
            # every rollout made both calls on its own environment (a branch replayed
            # the first one, from its prefix)
            assert [c["name"] for c in env.calls] == ["shortest_path"] * 2, i
            assert [t["role"] for t in turns] == ["assistant", "tool"] * 2 + ["assistant"]
            assert f"Total Length: {env.record.answer}" in str(turns[1]["content"])
        parts = rec.reward.reward("agent-tools").parts(
            call["completion_turns"], rec.reward.truths(call["ground_truth"], envs)
        )
        assert [(p.valid, p.correct) for p in parts] == [(True, True)] * 8
    logged = [m for m in _metrics(tmp_path / "run") if "arpo/branched_fraction" in m]
    assert [m["arpo/branched_fraction"] for m in logged] == [0.5, 0.5]
    assert [m["tools/call_frequency"] for m in logged] == [2.0, 2.0]
    assert [m["reward"] for m in logged] == [2.0, 2.0]


def test_arpo_planner_is_deterministic_and_fills_the_group() -> None:
    from closurebench.train.arpo import ArpoPlanner, Sample

    def sampler(seed: int) -> Any:
        import numpy as np

        g = np.random.default_rng(seed)

        def sample(requests: list[tuple[int, list[int]]]) -> list[Sample]:
            out = []
            for _ in requests:
                n = int(g.integers(3, 12))
                ids = [int(x) for x in g.integers(0, 5, n)]
                out.append(Sample(ids, [-1.0] * n, [float(x) for x in g.random(n)]))
            return out

        return sample

    planner = ArpoPlanner(ArpoSettings(), group_size=8, boundary={0}, window=2)
    a = planner.run(3, sampler(0), seed=5)
    b = planner.run(3, sampler(0), seed=5)
    assert [[x.ids for x in t] for t in a] == [[x.ids for x in t] for t in b]
    assert [len(t) for t in a] == [8, 8, 8]
    assert all(t[0].kind == t[1].kind == "initial" for t in a)
    never = ArpoPlanner(ArpoSettings(branch_probability=0.0, entropy_weight=0.0), group_size=4)
    trees = never.run(1, sampler(1), seed=0)
    assert [x.kind for x in trees[0]] == ["initial", "initial", "supplement", "supplement"]


def test_arpo_branches_after_tool_results_where_the_entropy_rises() -> None:
    """A multi-turn sampler marks the end of each tool result (token 9 here): the planner
    branches only there, and only where the next ``k`` tokens' entropy rises above the
    trajectory's first ``k`` (alpha 0, a steep beta: P_t is 1 on a rise, 0 otherwise)."""
    from closurebench.train.arpo import ArpoPlanner, Sample

    # model turn (3), tool result (2), model turn (3), tool result (1), answer (2)
    ids = [1, 1, 1, 9, 9, 2, 2, 2, 9, 3, 3]
    entropy = [0.1, 0.1, 0.1, 0.0, 0.0, 0.6, 0.5, 0.4, 0.0, 0.05, 0.05]
    asked: list[list[int]] = []

    def sample(requests: list[tuple[int, list[int]]]) -> list[Sample]:
        out = []
        for _, prefix in requests:
            asked.append(prefix)
            if not prefix:  # a full episode, tool results ending at 5 and 9
                out.append(Sample(ids, [-1.0] * 11, entropy, points=(5, 9)))
            else:  # a continuation after a tool result: one more tool round
                cont, ent = [4, 4, 9, 5], [0.2, 0.2, 0.0, 0.1]
                out.append(Sample(cont, [-1.0] * 4, ent, points=(3,)))
        return out

    settings = ArpoSettings(
        initial_rollouts=1, beam_size=2, branch_probability=0.0, entropy_weight=100.0,
        entropy_window=2,
    )  # fmt: skip
    (tree,) = ArpoPlanner(settings, group_size=5).run(1, sample, seed=0)
    assert [b.kind for b in tree] == ["initial", "branch", "branch", "supplement", "supplement"]
    root = tree[0]
    # walked: after the first tool result (entropy 0.55 > 0.1: branch), after the second
    # (0.05 < 0.1: no branch); never inside a model turn
    assert [(t, br) for t, _, _, br in root.steps] == [(5, True), (9, False)]
    assert [b.shared for b in tree[1:3]] == [5, 5] and asked[1:3] == [ids[:5], ids[:5]]
    first = tree[1]
    assert first.ids == [*ids[:5], 4, 4, 9, 5] and first.points == [5, 8]
    # a branch walks its own tool results only (after its shared prefix): at 8 the next
    # tokens' entropy (0.1) does not rise over its root's 0.1, so no branch; the group is
    # filled with fresh rollouts
    assert [(t, br) for t, _, _, br in first.steps] == [(8, False)]
    assert [len(p) for p in asked] == [0, 5, 5, 0, 0]

    def outside(requests: list[tuple[int, list[int]]]) -> list[Sample]:
        return [Sample([1, 2], [0.0, 0.0], [0.1, 0.1], points=(3,)) for _ in requests]

    with pytest.raises(ConfigError, match=r"branch points \(3,\) fall outside its 2 tokens"):
        ArpoPlanner(settings, group_size=2).run(1, outside, seed=0)


def test_a_bad_recipe_key_is_one_error_before_any_model_loads(
    rows: list[dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import closurebench.train.recipe as recipe_module

    def no_load(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("a model was loaded")

    monkeypatch.setattr(recipe_module, "load_model", no_load)
    data = tmp_path / "grpo.jsonl"
    data.write_text("".join(canonical_json(r) + "\n" for r in rows), encoding="utf-8")
    bad = tmp_path / "r.toml"
    bad.write_text(
        'preset = "grain-arpo"\n[model]\nname = "m"\n[grpo]\nnum_generation = 4\n'
        "[grpo.arpo]\nbeam = 3\n",
        encoding="utf-8",
    )
    res = runner.invoke(app, ["train", "grpo", "--data", str(data), "--recipe", str(bad)])
    assert res.exit_code == 1, res.output
    line = [x for x in res.output.splitlines() if x.strip()]
    assert len(line) == 1, res.output
    assert "grpo.num_generation: unknown key" in line[0]
    assert "grpo.arpo.beam: unknown key" in line[0]
    res = runner.invoke(
        app, ["train", "grpo", "--data", str(data), "--preset", "grain-sft", "--model", "m"]
    )
    assert res.exit_code == 1 and "not a grpo recipe" in res.output


def test_resume_continues_the_run(tiny: Path, rows: list[dict[str, Any]], tmp_path: Path) -> None:
    data = tmp_path / "grpo.jsonl"
    data.write_text("".join(canonical_json(r) + "\n" for r in rows), encoding="utf-8")
    recipe = tmp_path / "r.toml"
    recipe.write_text(
        f'[model]\nname = "{tiny}"\n[lora]\nr = 4\nalpha = 8\ntarget_modules = ["q_proj"]\n'
        "[optim]\nbatch_size = 2\n[output]\nsave_steps = 1\n"
        "[grpo]\nnum_generations = 2\nmax_completion_length = 16\n",
        encoding="utf-8",
    )
    out = tmp_path / "run"
    base = ["train", "grpo", "--data", str(data), "--out", str(out), "--no-progress"]
    res = runner.invoke(app, [*base, "--recipe", str(recipe), "--max-steps", "1"])
    assert res.exit_code == 0, res.output
    assert (out / "checkpoint-1").is_dir() and (out / "final" / "adapter_config.json").is_file()
    saved = json.loads((out / "recipe.json").read_text(encoding="utf-8"))
    assert saved["optim"]["max_steps"] == 1 and saved["grpo"]["num_generations"] == 2
    res = runner.invoke(app, [*base, "--recipe", str(recipe), "--max-steps", "2"])
    assert res.exit_code == 1 and "pass --resume" in res.output
    res = runner.invoke(app, [*base, "--preset", "grain-grpo", "--model", str(tiny), "--resume"])
    assert res.exit_code == 1 and "started with another recipe" in res.output
    res = runner.invoke(app, [*base, "--resume", "--max-steps", "2"])  # the saved recipe
    assert res.exit_code == 0, res.output
    state = json.loads((out / "checkpoint-2" / "trainer_state.json").read_text(encoding="utf-8"))
    assert state["global_step"] == 2
    steps = [m["step"] for m in _metrics(out) if "loss" in m]
    assert steps == [1, 2]  # the resumed run appended step 2 to step 1's log
    assert json.loads((out / "recipe.json").read_text(encoding="utf-8"))["optim"]["max_steps"] == 2


def test_curriculum_stages_filter_sizes_and_sample_graphs() -> None:
    def row(i: int, n: int, graph: str, task: str = "bfs") -> dict[str, Any]:
        return {"id": f"r{i}", "n": n, "graph_id": graph, "task": task}

    sizes = [(n, k) for n in range(4, 20) for k in range(3)]
    data = [row(i, n, f"g{n}-{k}") for i, (n, k) in enumerate(sizes)]
    data += [row(100 + i, 12, "g12-0") for i in range(3)]  # more views of one graph
    recipe = load_grpo_recipe(
        None,
        overrides={
            "model": {"name": "m"},
            "optim": {"batch_size": 4},
            "grpo": {
                "mini_batch_size": 2,
                "curriculum": [
                    {"n_min": 4, "n_max": 14, "max_steps": 3},
                    {"n_min": 10, "n_max": 19, "epochs": 1, "graphs_per_task_and_size": 2},
                ],
            },
        },
    )
    sched = plan_schedule(data, recipe)
    first, second = sched.stages
    assert first["rows"] == 11 * 3 + 3 and first["prompts"] == 8 and first["steps"] == 4
    graphs = {r["graph_id"] for r in sched.rows[8:]}
    assert second["rows"] == sum(10 <= r["n"] <= 19 and r["graph_id"] in graphs for r in data)
    assert all(4 <= r["n"] <= 14 for r in sched.rows[:8])
    assert all(10 <= r["n"] <= 19 for r in sched.rows[8:])
    kept = {(r["n"], r["graph_id"]) for r in sched.rows[8:]}
    assert all(len({g for n2, g in kept if n2 == n}) <= 2 for n in range(10, 20))
    assert sched.stage_at(4) == "stage-1" and sched.stage_at(5) == "stage-2"
    assert plan_schedule(data, recipe).rows == sched.rows  # seeded
    empty = {"model": {"name": "m"}, "grpo": {"curriculum": [{"n_min": 40, "n_max": 60}]}}
    with pytest.raises(ConfigError, match="keeps no row"):
        plan_schedule(data, load_grpo_recipe(None, overrides=empty))


def test_perturbed_views_keep_the_answer_checkable(records: list[Any]) -> None:
    from closurebench.train.environment import ViewSchedule, perturb_view
    from closurebench.train.rewards import AnswerReward

    reward = AnswerReward("direct")
    for rec in records[::8]:
        view = perturb_view(rec, 11)
        assert isinstance(view, GritInstance)
        assert view.graph == rec.graph and view.task == rec.task
        truth = canonical_json(view.to_json())
        assert instance_from_ground_truth(truth) == view
        reply = f"<answer>{json.dumps(view.answer)}</answer>"
        assert reward(completions=[reply], ground_truth=[truth]) == [1.0]
    sched = ViewSchedule(seed=3, group_size=2)
    views = [sched.view(records[0]) for _ in range(4)]
    assert views[0] == views[1] and views[2] == views[3] and views[0] != views[2]
    assert ViewSchedule(3, 2, perturb=False).view(records[0]) is records[0]
