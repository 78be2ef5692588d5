"""ARPO's entropy-triggered partial rollouts as a TRL ``rollout_func`` (GRAIN §4.4, Table 9).

GRAIN optimises its policy with ARPO (Agentic Reinforced Policy Optimization, Dong et
al.) on the GRPO estimator. ARPO spends a group's rollout budget ``M``
(``num_generations``) in two parts: ``N`` (``initial_rollouts``) full trajectories, then
*partial* rollouts branched from the points of those trajectories where the model is
uncertain, so the group explores alternatives exactly where the decision is open (GRAIN:
entity resolution and graph construction under ambiguous names). :class:`ArpoRollout` is
that sampler, called by TRL's ``GRPOTrainer`` as its ``rollout_func`` on the model's own
``generate`` (no vLLM); it returns ``prompt_ids``, ``completion_ids`` and the sampling
``logprobs`` of the whole branched group, and TRL's GRPO estimator does the rest.

The procedure, per group (consecutive ``num_generations`` copies of one prompt):

1. **Initial rollouts.** Sample ``N = min(initial_rollouts, M)`` full completions. For
   every token, the entropy ``H`` of the sampling distribution (softmax of the logits over
   the temperature) divided by ``log |V|`` (so ``0 <= H <= 1``). The trajectory's
   reference entropy ``H_0`` is the mean over its first ``k`` tokens (``entropy_window``).
2. **Step points.** The points where a step ends: after each token whose text holds a
   newline or ends a tag (``</graph>``, ``</think>``, ``</tool_call>``, ``>``); a
   completion with none is cut every ``k`` tokens. A sampler that runs the tool loop
   itself gives its own points instead (:attr:`Sample.points`: the end of each tool
   result, where ARPO branches), and the planner walks only those. The step entropy ``H_t`` at point
   ``t`` is the mean entropy of the ``k`` tokens that follow it.
3. **Entropy-triggered branching.** Walking every trajectory's step points in order,
   branch at ``t`` with probability ``P_t = clip(alpha + beta * (H_t - H_0), 0, 1)``
   (``alpha`` = ``branch_probability``, ``beta`` = ``entropy_weight``): sample
   ``beam_size`` continuations of the prefix ``completion[:t]`` (fewer when the budget is
   nearly spent). A branch is a trajectory too: its own later step points may branch
   again (against its root's ``H_0``). Branching stops when the group holds ``M``.
4. **Supplement.** If the walk ends with fewer than ``M``, the rest are fresh full
   rollouts (ARPO's fallback to trajectory-level sampling).

Decisions draw from a generator seeded by ``(seed, global step, call)``, and generation
runs under ``torch`` seeded the same way (the global RNG is restored afterwards), so a
run is reproducible under its seed.

What this is and is not the paper's ARPO (read from Dong et al.'s description and
GRAIN's Table 9, whose knobs it takes):

* ARPO measures the entropy of the ``k`` tokens generated right after each *tool
  result* against the first ``k`` tokens of the trajectory, and branches there. When the
  trainer calls tools (``environment_factory`` or ``tools``), this sampler runs the tool
  loop itself, as TRL's loop would (parse each turn's ``tool_calls`` with TRL's
  ``parse_response``, run them on the rollout's environment, append the tool turns'
  tokens as TRL renders them, sample the next turn, up to ``max_tool_calling_iterations``
  rounds and ``max_completion_length`` tokens), and the branch points are the ends of
  the tool results, at every tool call of the trajectory. A branch replays its prefix's
  tool calls on its own environment first (completion ``k`` of a group runs in
  environment ``k`` of the group), so each environment's ``calls`` are its own
  trajectory's. TRL's loop is switched off (the trainer's ``tools`` list is emptied on
  the first call), the loss mask (``env_mask``) is 0 on the tool results' tokens, and
  each completion's turns reach the reward as ``completion_turns``. Without tools, the
  step points are the text's step boundaries of the single turn.
* ``P_t = alpha + beta * dH_t`` is ARPO's rule; ``dH`` here is the difference of
  entropies normalised by ``log |V|`` (ARPO normalises the difference; the exact
  normaliser is our reading) and the test is a uniform draw against ``P_t`` (no
  separate threshold).
* Advantages: GRPO's estimator over the branched group. Every completion is a full
  sequence (shared prefix + its own suffix) with its own group-normalised advantage;
  a prefix shared by several completions is therefore trained once per completion that
  contains it, each time with that completion's advantage, so its total update is the sum
  (in mean: the average) of the advantages of the trajectories sharing it — ARPO's *soft*
  advantage attribution. The *hard* variant (one explicitly averaged advantage written on
  the shared tokens) is not implemented. The prefix tokens' ``logprobs`` are the parent's
  sampling logprobs (the same distribution produced them).
* Entropies come from a forward pass over the finished sequences (logits over the
  temperature; top-k / top-p are not applied, as in TRL's own log-probabilities).
* ``use_vllm`` is refused: the partial rollouts run on the model's ``generate``.
* Tool results' tokens carry logprob 0 and entropy 0 (they are masked out of the loss;
  ARPO's window after a branch point reads only the model's next tokens). Tools must be
  synchronous functions (a coroutine tool is refused).

Example (the planner alone, with a stand-in sampler):
    >>> def sample(requests):
    ...     return [Sample([7, 7, 1, 7, 2], [0.0] * 5, [0.9] * 5) for _ in requests]
    >>> planner = ArpoPlanner(ArpoSettings(), group_size=4, boundary={1}, window=2)
    >>> groups = planner.run(1, sample, seed=0)
    >>> [b.kind for b in groups[0]], [b.shared for b in groups[0]]
    (['initial', 'initial', 'branch', 'branch'], [0, 0, 3, 3])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from pydantic import Field

from closurebench.errors import ConfigError
from closurebench.seeding import derive_seed
from closurebench.train.recipe import _Strict

__all__ = ["ArpoPlanner", "ArpoRollout", "ArpoSettings", "Branch", "Sample", "step_points"]

#: Characters that end a step when a token's text ends with them (or holds a newline).
_STEP_END = (">",)


class ArpoSettings(_Strict):
    """ARPO's partial rollouts (GRAIN Table 9; see :mod:`closurebench.train.arpo`).

    Attributes:
        initial_rollouts: Full rollouts per prompt before branching (``N``).
        beam_size: Continuations sampled at a branch point.
        branch_probability: ARPO's base branching probability ``alpha``.
        entropy_weight: ARPO's ``beta``: how much a rise in entropy raises it.
        entropy_window: Tokens averaged for a step's entropy (ARPO's ``k``).
    """

    initial_rollouts: int = Field(2, ge=1)
    beam_size: int = Field(2, ge=1)
    branch_probability: float = Field(0.5, ge=0.0, le=1.0)
    entropy_weight: float = Field(0.2, ge=0.0)
    entropy_window: int = Field(8, ge=1)


@dataclass(frozen=True)
class Sample:
    """One sampled continuation: its tokens, their sampling logprobs and entropies.

    ``points``: where a branch may start, as positions in ``ids`` (``t``: keep
    ``ids[:t]``) — a multi-turn sampler gives the end of each tool result, ARPO's branch
    points; ``None``: the text's step boundaries (:func:`step_points`). ``mask``: 1 on the
    tokens the model wrote, 0 on the ones it did not (tool results); ``None``: all its own.
    """

    ids: list[int]
    logprobs: list[float]
    entropy: list[float]
    points: tuple[int, ...] | None = None
    mask: list[int] | None = None


@dataclass
class Branch:
    """One completion of a group (a node of ARPO's rollout tree).

    Attributes:
        ids: The completion's tokens (the shared prefix, then its own suffix).
        logprobs: Sampling logprob of each token.
        entropy: Normalised entropy (``H / log|V|``) at each token.
        parent: Index of the completion it branched from (None: a full rollout).
        shared: Tokens shared with ``parent`` (0 for a full rollout).
        root: Index of the initial rollout it descends from (itself for a full one).
        kind: ``initial``, ``branch`` or ``supplement``.
    """

    ids: list[int]
    logprobs: list[float]
    entropy: list[float]
    parent: int | None
    shared: int
    root: int
    kind: Literal["initial", "branch", "supplement"]
    steps: list[tuple[int, float, float, bool]] = field(default_factory=list)
    """The step points walked: ``(t, dH_t, P_t, branched)``."""
    points: list[int] | None = None
    """The sampler's branch points in ``ids`` (None: the text's step boundaries)."""
    mask: list[int] | None = None
    """1 on the model's own tokens, 0 on tool results (None: every token is the model's)."""


def _window(entropy: Sequence[float], t: int, k: int) -> float:
    part = entropy[t : t + k]
    return float(sum(part) / len(part)) if part else 0.0


def step_points(ids: Sequence[int], start: int, boundary: set[int], window: int) -> list[int]:
    """The branch points of a completion after ``start``: after each step-ending token.

    A point ``t`` means "keep ``ids[:t]``, sample the rest"; ``start < t < len(ids)``. A
    completion without step-ending tokens there is cut every ``window`` tokens.

    Example:
        >>> step_points([5, 1, 5, 5, 1, 5], 0, {1}, 2)
        [2, 5]
        >>> step_points([5, 5, 5, 5, 5], 0, {1}, 2)
        [2, 4]
    """
    points = [t for t in range(start + 1, len(ids)) if ids[t - 1] in boundary]
    if points:
        return points
    return list(range(start + window, len(ids), max(window, 1)))


class ArpoPlanner:
    """ARPO's tree of rollouts, over any sampler (see the module docstring).

    Args:
        settings: The ARPO knobs (``initial_rollouts``, ``beam_size``,
            ``branch_probability``, ``entropy_weight``, ``entropy_window``).
        group_size: Completions per prompt (``num_generations``, ARPO's ``M``).
        boundary: Token ids that end a step.
        window: Tokens averaged for a step's entropy (ARPO's ``k``; default: the
            settings' ``entropy_window``).
    """

    def __init__(
        self,
        settings: ArpoSettings,
        group_size: int,
        *,
        boundary: Iterable[int] = (),
        window: int | None = None,
    ) -> None:
        if group_size < 1:
            raise ConfigError(f"group_size={group_size} must be at least 1")
        self.settings = settings
        self.group_size = group_size
        self.boundary = set(boundary)
        self.window = int(window or settings.entropy_window)

    def run(
        self,
        groups: int,
        sample: Callable[[list[tuple[int, list[int]]]], list[Sample]],
        *,
        seed: int,
    ) -> list[list[Branch]]:
        """Build every group's completions.

        Args:
            groups: Number of groups (prompts).
            sample: Given ``[(group, prefix ids), ...]``, one :class:`Sample` per request
                (the continuation after the prefix), in order. Called once per round.
            seed: Seed of the branching decisions.

        Returns:
            Per group, ``group_size`` :class:`Branch` es: the initial rollouts, the
            branches in the order they were made, then any supplements.
        """
        s = self.settings
        m = self.group_size
        draw = np.random.default_rng(seed)
        trees: list[list[Branch]] = [[] for _ in range(groups)]
        first: list[tuple[int, list[int]]] = [
            (g, []) for g in range(groups) for _ in range(min(s.initial_rollouts, m))
        ]
        for (g, _), got in zip(first, sample(first) if first else [], strict=True):
            i = len(trees[g])
            trees[g].append(
                Branch(
                    got.ids,
                    got.logprobs,
                    got.entropy,
                    None,
                    0,
                    i,
                    "initial",
                    [],
                    _own(got),
                    got.mask,
                )
            )
        h0 = [[_window(b.entropy, 0, self.window) for b in tree] for tree in trees]
        frontier = [(g, i) for g in range(groups) for i in range(len(trees[g]))]
        while frontier:
            wanted = [len(t) for t in trees]
            requests: list[tuple[int, int, int]] = []  # (group, parent, t)
            for g, i in frontier:
                node = trees[g][i]
                points = (
                    step_points(node.ids, node.shared, self.boundary, self.window)
                    if node.points is None
                    else [t for t in node.points if node.shared < t < len(node.ids)]
                )
                for t in points:
                    if wanted[g] >= m:
                        break
                    dh = _window(node.entropy, t, self.window) - h0[g][node.root]
                    p = min(1.0, max(0.0, s.branch_probability + s.entropy_weight * dh))
                    branched = bool(draw.random() < p)
                    node.steps.append((t, dh, p, branched))
                    if branched:
                        beam = min(s.beam_size, m - wanted[g])
                        requests += [(g, i, t)] * beam
                        wanted[g] += beam
            if not requests:
                break
            asked = [(g, trees[g][i].ids[:t]) for g, i, t in requests]
            frontier = []
            for (g, i, t), got in zip(requests, sample(asked), strict=True):
                parent = trees[g][i]
                own = _own(got)
                trees[g].append(
                    Branch(
                        parent.ids[:t] + got.ids,
                        parent.logprobs[:t] + got.logprobs,
                        parent.entropy[:t] + got.entropy,
                        i,
                        t,
                        parent.root,
                        "branch",
                        [],
                        None
                        if own is None
                        else [p for p in parent.points or [] if p <= t] + [t + p for p in own],
                        None
                        if parent.mask is None and got.mask is None
                        else (parent.mask or [1] * len(parent.ids))[:t]
                        + (got.mask or [1] * len(got.ids)),
                    )
                )
                frontier.append((g, len(trees[g]) - 1))
        rest: list[tuple[int, list[int]]] = [
            (g, []) for g in range(groups) for _ in range(m - len(trees[g]))
        ]
        for (g, _), got in zip(rest, sample(rest) if rest else [], strict=True):
            i = len(trees[g])
            trees[g].append(
                Branch(
                    got.ids,
                    got.logprobs,
                    got.entropy,
                    None,
                    0,
                    i,
                    "supplement",
                    [],
                    _own(got),
                    got.mask,
                )
            )
        return trees


def _own(got: Sample) -> list[int] | None:
    """A sample's branch points, checked to lie inside it (and its mask to cover it)."""
    if got.mask is not None and len(got.mask) != len(got.ids):
        raise ConfigError(
            f"a sample's mask has {len(got.mask)} entries for its {len(got.ids)} tokens"
        )
    if got.points is None:
        return None
    if any(not 0 < p <= len(got.ids) for p in got.points):
        raise ConfigError(
            f"a sample's branch points {got.points} fall outside its {len(got.ids)} tokens"
        )
    return sorted(set(got.points))


def _boundary_ids(tokenizer: Any) -> set[int]:
    """Token ids whose text holds a newline or ends a tag (a step's end)."""
    vocab = len(tokenizer)
    texts = tokenizer.batch_decode([[i] for i in range(vocab)], skip_special_tokens=False)
    return {i for i, t in enumerate(texts) if "\n" in t or t.rstrip().endswith(_STEP_END)}


class ArpoRollout:
    """TRL's ``rollout_func``: ARPO's branched groups on the model's ``generate``.

    Args:
        settings: The ARPO knobs.
        seed: Seed of the decisions and of the sampling.

    Attributes:
        last_groups: The groups of the latest call (:class:`Branch` lists), for
            inspection and tests.
    """

    def __init__(self, settings: ArpoSettings, *, seed: int) -> None:
        self.settings = settings
        self.seed = int(seed)
        self.calls = 0
        self.last_groups: list[list[Branch]] = []
        self._boundary: set[int] | None = None
        self._tools: list[Callable[..., Any]] | None = None

    def _take_tools(self, trainer: Any) -> list[Callable[..., Any]] | None:
        """The standalone tools when the trainer calls tools (None: it does not).

        ARPO runs the tool loop itself (it branches after tool results), so TRL's own
        loop, which would continue the returned completions again, is switched off here:
        the trainer's ``tools`` list is emptied on the first call (TRL still renders each
        prompt with its environment's tools and passes the environments to the reward).
        """
        if self._tools is None and getattr(trainer, "tools", None):
            self._tools = list(getattr(trainer, "_standalone_tools", None) or [])
            trainer.tools = []
        return self._tools

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        """Sample ``len(prompts)`` completions: one ARPO group per ``num_generations`` run.

        Raises:
            ConfigError: under vLLM, or when a group's prompts differ.
        """
        import torch
        from trl.models import unwrap_model_for_generation

        if getattr(trainer, "use_vllm", False):
            raise ConfigError(
                "ARPO's partial rollouts run on the model's generate; set grpo.use_vllm = false "
                "or use algorithm = grpo"
            )
        mode = "train" if trainer.model.training else "eval"
        size = trainer.num_generations if mode == "train" else trainer.num_generations_eval
        if len(prompts) % size:
            raise ConfigError(
                f"{len(prompts)} prompts do not split into groups of num_generations={size}"
            )
        starts = list(range(0, len(prompts), size))
        for g in starts:
            if any(p != prompts[g] for p in prompts[g : g + size]):
                raise ConfigError(
                    "the prompts of one GRPO group differ (an environment drew different "
                    "views within a group?); ARPO branches need one prompt per group"
                )
        tokenizer = trainer.processing_class
        tokenizer = getattr(tokenizer, "tokenizer", tokenizer)
        if self._boundary is None:
            self._boundary = _boundary_ids(tokenizer)
        # every prompt (TRL renders each with its environment's tools), one per group kept
        every, _, _ = trainer._tokenize_prompts(prompts)
        prompt_ids = [list(map(int, every[g])) for g in starts]
        tools = self._take_tools(trainer)
        environments = list(getattr(trainer, "environments", None) or [])
        if tools is not None and environments and len(environments) != len(prompts):
            raise ConfigError(
                f"{len(environments)} environments for {len(prompts)} prompts; ARPO runs one "
                "rollout per environment"
            )
        step = int(trainer.state.global_step)
        self.calls += 1
        call_seed = derive_seed(self.seed, "arpo", step, self.calls)
        planner = ArpoPlanner(self.settings, size, boundary=self._boundary)
        devices = [torch.cuda.current_device()] if torch.cuda.is_available() else []
        with (
            unwrap_model_for_generation(
                trainer.model_wrapped,
                trainer.accelerator,
                gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
                generation_kwargs=trainer.generation_kwargs,
                gradient_checkpointing_kwargs=trainer.args.gradient_checkpointing_kwargs,
            ) as model,
            torch.no_grad(),
            torch.random.fork_rng(devices=devices),
        ):
            torch.manual_seed(call_seed % 2**63)
            sampler: _ModelSampler = (
                _ModelSampler(model, trainer, prompt_ids)
                if tools is None
                else _ToolSampler(
                    model,
                    trainer,
                    prompt_ids,
                    environments=environments or [None] * len(prompts),
                    size=size,
                    tools=tools,
                )
            )
            groups = planner.run(len(starts), sampler, seed=derive_seed(call_seed, "branch"))
        self.last_groups = groups
        self._log(trainer, mode, groups)
        out_prompts, out_ids, out_lps = [], [], []
        for g, tree in enumerate(groups):
            for b in tree:
                out_prompts.append(prompt_ids[g])
                out_ids.append(b.ids)
                out_lps.append(b.logprobs)
        out: dict[str, Any] = {
            "prompt_ids": out_prompts,
            "completion_ids": out_ids,
            "logprobs": out_lps,
            "arpo_kind": [b.kind for tree in groups for b in tree],
            "arpo_shared": [b.shared for tree in groups for b in tree],
        }
        if isinstance(sampler, _ToolSampler):
            done = [sampler.done[(g, k)] for g, tree in enumerate(groups) for k in range(len(tree))]
            # TRL's loss mask: completion_mask x env_mask (0 on the tool results' tokens)
            out["env_mask"] = [b.mask or [1] * len(b.ids) for tree in groups for b in tree]
            out["completion_turns"] = [messages for messages, _, _ in done]
            self._log_tools(trainer, mode, done)
        return out

    @staticmethod
    def _log_tools(
        trainer: Any, mode: str, done: list[tuple[list[dict[str, Any]], int, int]]
    ) -> None:
        """TRL's tool metrics (its own loop is off under ARPO): calls per rollout, failures."""
        metrics = getattr(trainer, "_metrics", None)
        if metrics is None:
            return
        calls = sum(c for _, c, _ in done)
        failed = sum(f for _, _, f in done)
        metrics[mode]["tools/call_frequency"].append(calls / max(len(done), 1))
        metrics[mode]["tools/failure_frequency"].append(failed / calls if calls else 0.0)

    @staticmethod
    def _log(trainer: Any, mode: str, groups: list[list[Branch]]) -> None:
        metrics = getattr(trainer, "_metrics", None)
        if metrics is None:
            return
        flat = [b for tree in groups for b in tree]
        n = max(len(flat), 1)
        metrics[mode]["arpo/branched_fraction"].append(sum(b.kind == "branch" for b in flat) / n)
        metrics[mode]["arpo/supplement_fraction"].append(
            sum(b.kind == "supplement" for b in flat) / n
        )
        shared = [b.shared / max(len(b.ids), 1) for b in flat if b.kind == "branch"]
        metrics[mode]["arpo/shared_prefix"].append(sum(shared) / len(shared) if shared else 0.0)


class _ModelSampler:
    """Samples continuations with ``generate``; scores them with one forward pass."""

    def __init__(self, model: Any, trainer: Any, prompt_ids: list[list[int]]) -> None:
        self.model = model
        self.trainer = trainer
        self.prompt_ids = prompt_ids
        tok = trainer.processing_class
        self.pad = int(getattr(tok, "tokenizer", tok).pad_token_id)
        self.eos = set(int(e) for e in trainer.eos_token_ids)
        self.max_len = int(trainer.max_completion_length)
        self.temperature = float(trainer.temperature or 1.0)
        self.chunk = max(int(trainer.args.per_device_train_batch_size), 1)

    def __call__(self, requests: list[tuple[int, list[int]]]) -> list[Sample]:
        out: list[Sample] = []
        for start in range(0, len(requests), self.chunk):
            out += self._batch(requests[start : start + self.chunk])
        return out

    def _batch(self, requests: list[tuple[int, list[int]]]) -> list[Sample]:
        rows = [self.prompt_ids[g] + prefix for g, prefix in requests]
        conts = self._generate(rows, [self.max_len - len(prefix) for _, prefix in requests])
        logps, ents = self._score(rows, conts)
        return [Sample(c, lp, en) for c, lp, en in zip(conts, logps, ents, strict=True)]

    def _generate(self, rows: list[list[int]], budgets: list[int]) -> list[list[int]]:
        """One sampled continuation of each row (at most its budget, cut after EOS)."""
        import copy

        import torch

        if not rows or max(budgets) < 1:
            return [[] for _ in rows]
        device = self.trainer.accelerator.device
        width = max(map(len, rows))
        ids = torch.full((len(rows), width), self.pad, dtype=torch.long)
        mask = torch.zeros((len(rows), width), dtype=torch.long)
        for j, r in enumerate(rows):
            ids[j, width - len(r) :] = torch.tensor(r)
            mask[j, width - len(r) :] = 1
        config = copy.deepcopy(self.trainer.generation_config)
        config.max_new_tokens = max(budgets)
        gen = self.model.generate(
            input_ids=ids.to(device), attention_mask=mask.to(device), generation_config=config
        )[:, width:].cpu()
        conts: list[list[int]] = []
        for j, budget in enumerate(budgets):
            cont: list[int] = []
            for tok in gen[j].tolist()[: max(budget, 0)]:
                cont.append(int(tok))
                if tok in self.eos:
                    break
            conts.append(cont)
        return conts

    def _score(
        self, rows: list[list[int]], conts: list[list[int]]
    ) -> tuple[list[list[float]], list[list[float]]]:
        """Sampling logprobs and normalised entropies of each continuation's tokens."""
        import torch

        device = self.trainer.accelerator.device
        longest = max(map(len, conts))
        if longest == 0:
            return [[] for _ in conts], [[] for _ in conts]
        seqs = [r + c for r, c in zip(rows, conts, strict=True)]
        width = max(map(len, seqs))
        ids = torch.full((len(seqs), width), self.pad, dtype=torch.long)
        mask = torch.zeros((len(seqs), width), dtype=torch.long)
        for j, s in enumerate(seqs):  # left-pad: every continuation ends at the last column
            ids[j, width - len(s) :] = torch.tensor(s)
            mask[j, width - len(s) :] = 1
        keep = longest + 1  # only the positions that predict continuation tokens
        positions = (mask.cumsum(-1) - 1).clamp(min=0)  # as generate numbers left-padded rows
        logits = self.model(
            input_ids=ids.to(device),
            attention_mask=mask.to(device),
            position_ids=positions.to(device),
            logits_to_keep=keep,
        ).logits[:, -keep:]
        logits = logits.float() / self.temperature
        norm = math.log(logits.size(-1))
        logps_out: list[list[float]] = []
        ents_out: list[list[float]] = []
        for j, c in enumerate(conts):
            if not c:
                logps_out.append([])
                ents_out.append([])
                continue
            lg = logits[j, keep - 1 - len(c) : keep - 1]
            logp = torch.log_softmax(lg, dim=-1)
            chosen = logp.gather(-1, torch.tensor(c, device=lg.device).unsqueeze(-1)).squeeze(-1)
            entropy = -(logp.exp() * logp).sum(-1) / norm
            logps_out.append(chosen.cpu().tolist())
            ents_out.append(entropy.cpu().tolist())
        return logps_out, ents_out


@dataclass
class _Turns:
    """What a prefix ending at a tool result holds: its messages and its tool calls."""

    messages: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    rounds: int
    failed: int = 0


@dataclass
class _Rollout:
    """One request's multi-turn rollout while it is sampled."""

    env: Any
    table: dict[str, Callable[..., Any]]
    seq: list[int]
    messages: list[dict[str, Any]]
    calls: list[dict[str, Any]]
    rounds: int
    prefix: int
    failed: int = 0
    ids: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    entropy: list[float] = field(default_factory=list)
    mask: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)


def tool_table(
    env: Any, standalone: Sequence[Callable[..., Any]] = ()
) -> dict[str, Callable[..., Any]]:
    """The tools a rollout may call: ``standalone`` plus ``env``'s public methods (as TRL)."""
    import inspect

    methods = [
        getattr(env, name)
        for name, _ in inspect.getmembers(type(env), predicate=inspect.isfunction)
        if name not in ("reset", "get_reward") and not name.startswith("_")
    ]
    table: dict[str, Callable[..., Any]] = {}
    for fn in [*standalone, *methods]:
        if inspect.iscoroutinefunction(fn):
            raise ConfigError(
                f"tool {fn.__name__!r} is a coroutine; ARPO's tool loop runs synchronous tools "
                "(make it a plain function, or use algorithm = grpo)"
            )
        table[fn.__name__] = fn
    return table


def run_tool_call(
    table: Mapping[str, Callable[..., Any]], call: Mapping[str, Any]
) -> tuple[str, Any, bool]:
    """Run one parsed tool call as TRL's tool loop does: ``(name, result, ok)``.

    A failing tool, an unknown name or a call that is not a function call is an
    ``{"error": ...}`` result, never an exception (model output is untrusted).

    Example:
        >>> table = {"add": lambda a, b: a + b}
        >>> run_tool_call(table, {"type": "function", "function": {"name": "add",
        ...     "arguments": {"a": 1, "b": 2}}})
        ('add', 3, True)
        >>> run_tool_call(table, {"type": "function", "function": {"name": "mul",
        ...     "arguments": {}}})
        ('mul', {'error': 'Tool mul not found.'}, False)
    """
    if call.get("type") != "function":
        name = str(call.get("name", "unknown"))
        return name, {"error": f"Unsupported tool call type: {call.get('type')}"}, False
    function = call.get("function") or {}
    name = str(function.get("name"))
    arguments = function.get("arguments") or {}
    if name not in table:
        return name, {"error": f"Tool {name} not found."}, False
    try:
        if not isinstance(arguments, Mapping):
            raise TypeError(f"arguments must be an object, got {type(arguments).__name__}")
        return name, table[name](**arguments), True
    except Exception as e:  # a tool's failure is the model's outcome, not a crash
        return name, {"error": str(e)}, False


class _ToolSampler(_ModelSampler):
    """Samples whole multi-turn rollouts: turn, tool calls on the rollout's environment,
    the tool results' tokens (as TRL's tool loop appends them), the next turn, ...

    Completion ``k`` of group ``g`` (the ``k``-th request for ``g``, in the planner's
    order) runs in environment ``g * size + k``; a branch first replays on it the tool
    calls of its shared prefix, so its environment holds the state the prefix left. Each
    sample's points are the ends of its tool results; its mask is 0 on their tokens.
    """

    def __init__(
        self,
        model: Any,
        trainer: Any,
        prompt_ids: list[list[int]],
        *,
        environments: Sequence[Any],
        size: int,
        tools: Sequence[Callable[..., Any]],
    ) -> None:
        super().__init__(model, trainer, prompt_ids)
        self.environments = list(environments)
        self.size = size
        self.standalone = list(tools)
        self.rounds = int(trainer.max_tool_calling_iterations)
        names = getattr(trainer, "_batch_environments", None) or [None] * len(environments)
        env_tools = getattr(trainer, "_env_tools", None) or {}
        self.schemas = [
            env_tools.get(names[g * size], self.standalone) for g in range(len(prompt_ids))
        ]
        config = getattr(model.config, "text_config", None) or model.config
        self.max_model_len = int(getattr(config, "max_position_embeddings", 1 << 30))
        self.slots = [0] * len(prompt_ids)
        self.history: list[dict[tuple[int, ...], _Turns]] = [{} for _ in prompt_ids]
        #: ``(group, slot) -> (messages, calls made, failed calls)`` of every finished rollout.
        self.done: dict[tuple[int, int], tuple[list[dict[str, Any]], int, int]] = {}
        tok = trainer.processing_class
        self.tokenizer = getattr(tok, "tokenizer", tok)

    def _batch(self, requests: list[tuple[int, list[int]]]) -> list[Sample]:
        from trl.chat_template_utils import parse_response

        states: list[_Rollout] = []
        keys: list[tuple[int, int]] = []
        for g, prefix in requests:
            slot = self.slots[g]
            self.slots[g] += 1
            if slot >= self.size:
                raise ConfigError(
                    f"group {g} asked for more than num_generations={self.size} rollouts"
                )
            env = self.environments[g * self.size + slot]
            table = tool_table(env, self.standalone)
            past = _Turns([], [], 0)
            if prefix:
                found = self.history[g].get(tuple(prefix))
                if found is None:
                    raise ConfigError("an ARPO branch point is not the end of a tool result")
                past = found
                for call in past.calls:  # the branch's environment takes the prefix's state
                    run_tool_call(table, call)
            states.append(
                _Rollout(
                    env,
                    table,
                    self.prompt_ids[g] + list(prefix),
                    [dict(m) for m in past.messages],
                    list(past.calls),
                    past.rounds,
                    len(prefix),
                    past.failed,
                )
            )
            keys.append((g, slot))
        active = list(range(len(states)))
        while active:
            rows = [states[j].seq for j in active]
            budgets = [self.max_len - states[j].prefix - len(states[j].ids) for j in active]
            conts = self._generate(rows, budgets)
            logps, ents = self._score(rows, conts)
            still: list[int] = []
            for j, cont, lp, en in zip(active, conts, logps, ents, strict=True):
                st = states[j]
                before = list(st.seq)
                st.seq += cont
                st.ids += cont
                st.logprobs += lp
                st.entropy += en
                st.mask += [1] * len(cont)
                if not cont:
                    continue
                message = parse_response(
                    self.tokenizer, cont, prefix=before, tools=self.schemas[keys[j][0]]
                )
                st.messages.append(message)
                wanted = message.get("tool_calls") or []
                if not wanted or st.rounds >= self.rounds:
                    continue
                results = []
                for call in wanted:
                    name, result, ok = run_tool_call(st.table, call)
                    st.failed += not ok
                    content = result if isinstance(result, list) else str(result)
                    results.append({"role": "tool", "name": name, "content": content})
                suffix = list(self.trainer._get_tool_suffix_ids(results))
                total = st.prefix + len(st.ids) + len(suffix)
                if total > self.max_len or len(st.seq) + len(suffix) >= self.max_model_len:
                    continue  # as TRL: a tool result that does not fit ends the rollout
                st.messages += results
                st.calls += [dict(c) for c in wanted]
                st.rounds += 1
                st.seq += suffix
                st.ids += suffix
                st.logprobs += [0.0] * len(suffix)
                st.entropy += [0.0] * len(suffix)
                st.mask += [0] * len(suffix)
                st.points.append(len(st.ids))
                key = tuple(st.seq[len(self.prompt_ids[keys[j][0]]) :])
                self.history[keys[j][0]][key] = _Turns(
                    [dict(m) for m in st.messages], list(st.calls), st.rounds, st.failed
                )
                if st.prefix + len(st.ids) < self.max_len:
                    still.append(j)
            active = still
        out: list[Sample] = []
        for key, st in zip(keys, states, strict=True):
            self.done[key] = (st.messages, len(st.calls), st.failed)
            out.append(Sample(st.ids, st.logprobs, st.entropy, tuple(st.points), st.mask))
        return out
