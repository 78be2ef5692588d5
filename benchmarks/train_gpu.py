"""One short SFT job and one short GRPO / ARPO job on an accelerator: tokens/s and peak memory.

Not a test and not in CI (it needs the ``train`` extra, a model and ideally a GPU). It
builds its own data (ClosureBench ``answer`` SFT records; GRIT GRPO prompts in the
``agent`` protocol, or the graph-tool environment with ``--mode tools``), runs
``closurebench train sft`` and ``closurebench train grpo`` through the same functions the
CLI calls (the papers' presets, shortened to ``--sft-steps`` / ``--grpo-steps``), and
prints one markdown table: steps, wall time, tokens trained on (TRL's ``num_tokens``),
tokens/s, peak accelerator memory (``torch.cuda.max_memory_allocated``; on CPU the
process's peak RSS) and the last logged loss / reward::

    uv run python benchmarks/train_gpu.py --model Qwen/Qwen2.5-0.5B-Instruct
    uv run python benchmarks/train_gpu.py --model DIR --algorithm grpo --mode tools \\
        --grpo-steps 4 --json results.json

``--model`` may be any chat model the machine can load (a hub id in the local cache or a
directory). With ``--mode tools`` the model's chat template must render tool calls
(Qwen2.5/3, Llama 3.1+). Record the figures in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from closurebench.generate.grit import GritConfig, generate_records
from closurebench.jsonl import canonical_json


def _peak_memory_gib() -> tuple[float, str]:
    import torch

    if torch.cuda.is_available():
        return torch.cuda.max_memory_allocated() / 2**30, "cuda"
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20, "cpu rss"


def _reset_peak() -> None:
    import torch

    if torch.cuda.is_available():
        torch.cuda.empty_cache()
        torch.cuda.reset_peak_memory_stats()


def _metrics(out: Path) -> list[dict[str, Any]]:
    path = out / "metrics.jsonl"
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def _last(rows: list[dict[str, Any]], key: str) -> float | None:
    vals = [r[key] for r in rows if r.get(key) is not None]
    return float(vals[-1]) if vals else None


def _write(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join(canonical_json(r.to_json()) + "\n" for r in rows), encoding="utf-8")
    return path


def _measure(
    job: str, steps: int, out: Path, last_key: str, train: Callable[[], object]
) -> dict[str, Any]:
    """Run ``train``; its wall time, TRL's ``num_tokens``, peak memory, last ``last_key``."""
    _reset_peak()
    t0 = time.perf_counter()
    train()
    wall = time.perf_counter() - t0
    logs = _metrics(out)
    peak, where = _peak_memory_gib()
    tokens = _last(logs, "num_tokens") or 0.0
    last = _last(logs, last_key)
    return {
        "job": job,
        "steps": steps,
        "wall_s": wall,
        "tokens": tokens,
        "tokens_per_s": tokens / wall if wall else 0.0,
        "peak_gib": peak,
        "memory": where,
        "last": f"{last_key} {last:.3f}" if last is not None else "",
    }


def run_sft(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The ``closurebench-sft`` preset (LoRA) for ``--sft-steps`` steps."""
    import closurebench
    from closurebench.train.export import sft_records
    from closurebench.train.sft import load_sft_recipe, train_sft

    records = closurebench.generate_split("finetune", seed=args.seed, count=args.count)
    data = _write(work / "sft.jsonl", sft_records(records, "answer"))
    out = work / "sft"
    recipe = load_sft_recipe(
        None,
        overrides={
            "model": {"name": args.model, "dtype": args.dtype},
            "optim": {"max_steps": args.sft_steps},
            "output": {"dir": str(out)},
        },
    )
    job = "sft (closurebench-sft, LoRA r 16)"
    return _measure(
        job, args.sft_steps, out, "loss", lambda: train_sft(recipe, data, progress=False)
    )


def run_grpo(args: argparse.Namespace, work: Path) -> dict[str, Any]:
    """The ``grain-<algorithm>`` preset, LoRA, shortened, for ``--grpo-steps`` steps."""
    from closurebench.train.export import grpo_records
    from closurebench.train.grpo import load_grpo_recipe, train_grpo

    graphs = max(args.count // 8, 2)
    records = generate_records(GritConfig(split="train", seed=args.seed, count=graphs, n_max=10))
    data = _write(work / "grpo.jsonl", grpo_records(records[0], "agent"))
    out = work / "grpo"
    recipe = load_grpo_recipe(
        None,
        preset_name=f"grain-{args.algorithm}",
        overrides={
            "model": {"name": args.model, "dtype": args.dtype},
            "lora": {"r": 16, "alpha": 32},
            "optim": {"max_steps": args.grpo_steps, "batch_size": 4},
            "output": {"dir": str(out)},
            "grpo": {
                "mode": args.mode,
                "mini_batch_size": 4,
                "num_generations": args.generations,
                "max_completion_length": args.completion_tokens,
                "max_prompt_length": None,
            },
        },
    )
    job = f"{args.algorithm} ({args.mode}, {args.generations} rollouts, LoRA r 16)"
    return _measure(
        job, args.grpo_steps, out, "reward", lambda: train_grpo(recipe, data, progress=False)
    )


def main(argv: list[str] | None = None) -> int:
    """Run both jobs and print the table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", default="Qwen/Qwen2.5-0.5B-Instruct")
    p.add_argument("--dtype", default="bfloat16", choices=["bfloat16", "float16", "float32"])
    p.add_argument("--count", type=int, default=64, help="instances per job's dataset")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--sft-steps", type=int, default=20)
    p.add_argument("--grpo-steps", type=int, default=4)
    p.add_argument("--algorithm", default="arpo", choices=["grpo", "arpo"])
    p.add_argument("--mode", default="prompt", choices=["prompt", "tools"])
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--completion-tokens", type=int, default=512)
    p.add_argument("--skip", choices=["sft", "grpo"], default=None)
    p.add_argument("--json", type=Path, default=None, help="also write the rows here")
    args = p.parse_args(argv)
    import torch

    device = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "CPU"
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        if args.skip != "sft":
            rows.append(run_sft(args, work))
        if args.skip != "grpo":
            rows.append(run_grpo(args, work))
    print(f"model {args.model} ({args.dtype}) on {device}, torch {torch.__version__}\n")
    print("| job | steps | wall s | tokens | tokens/s | peak GiB | last |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['job']} | {r['steps']} | {r['wall_s']:.1f} | {r['tokens']:,.0f} | "
            f"{r['tokens_per_s']:,.0f} | {r['peak_gib']:.2f} ({r['memory']}) | {r['last']} |"
        )
    if args.json is not None:
        meta = {"model": args.model, "dtype": args.dtype, "device": device}
        args.json.write_text(json.dumps({**meta, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
