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
directory), or ``tiny`` (a 4-layer Llama built here from scratch: for a machine that
cannot reach the Hub). With ``--mode tools`` the model's chat template must render tool
calls (Qwen2.5/3, Llama 3.1+).

Unattended: it first checks its environment (torch and its CUDA device, the device's
total and free memory, whether vLLM, TRL, transformers and PEFT import, whether the
model is there) and says so in one line each; with no CUDA device it refuses in one line
(exit 2) unless ``--allow-cpu`` (to try the plumbing), and a model it cannot find is one
line too. The default workload is fixed: 20 SFT steps, then 50 GRPO steps (``--algorithm
grpo``; ARPO with ``--algorithm arpo``). ``--json FILE`` (default
``train_gpu.json``) gets the environment, each job's tokens/s, peak memory and its curve
(loss per SFT step, reward and its parts per GRPO step). Record the figures in
``benchmarks/RESULTS.md``.
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


def environment(model: str) -> dict[str, Any]:
    """What this machine has for the benchmark (nothing is loaded onto the device)."""
    import importlib.metadata as md
    import os

    import torch

    env: dict[str, Any] = {"torch": torch.__version__, "cuda": torch.cuda.is_available()}
    if env["cuda"]:
        free, total = torch.cuda.mem_get_info(0)
        env.update(
            device=torch.cuda.get_device_name(0),
            memory_gib=round(total / 2**30, 1),
            free_gib=round(free / 2**30, 1),
            bf16=torch.cuda.is_bf16_supported(),
        )
    for name in ("trl", "transformers", "peft", "vllm"):
        try:
            env[name] = md.version(name)
        except md.PackageNotFoundError:
            env[name] = None
    if model == "tiny":
        env["model"] = "tiny (built here)"
    elif Path(model).is_dir():
        env["model"] = f"local folder {model}"
    else:
        try:
            from huggingface_hub import snapshot_download

            snapshot_download(model, local_files_only=True)
            env["model"] = f"{model} (in the local Hub cache)"
        except Exception:
            env["model"] = None if os.environ.get("HF_HUB_OFFLINE") == "1" else f"{model} (Hub)"
    return env


def _tiny(work: Path) -> str:
    """A 4-layer Llama (hidden 256) with a tokenizer trained on the benchmark's text."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "train"))
    from tiny_model import build_tiny_chat_model

    import closurebench
    from closurebench.train.export import sft_records

    records = closurebench.generate_split("finetune", seed=0, count=64)
    texts = [m.content or "" for r in sft_records(records, "answer") for m in r.messages]
    out = build_tiny_chat_model(
        work / "tiny", texts, vocab_size=4000, hidden_size=256, intermediate_size=512
    )
    return str(out)


def _curve(out: Path, keys: tuple[str, ...]) -> list[dict[str, Any]]:
    return [
        {"step": r.get("step"), **{k: r[k] for k in keys if k in r}}
        for r in _metrics(out)
        if any(k in r for k in keys)
    ]


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
    keys = (
        ("loss",)
        if last_key == "loss"
        else ("reward", "closurebench/valid", "closurebench/r_ans", "closurebench/s_inv")
    )
    return {
        "job": job,
        "steps": steps,
        "curve": _curve(out, keys),
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
    p.add_argument("--grpo-steps", type=int, default=50)
    p.add_argument("--algorithm", default="grpo", choices=["grpo", "arpo"])
    p.add_argument("--mode", default="prompt", choices=["prompt", "tools"])
    p.add_argument("--generations", type=int, default=8)
    p.add_argument("--completion-tokens", type=int, default=512)
    p.add_argument("--skip", choices=["sft", "grpo"], default=None)
    p.add_argument("--json", type=Path, default=Path("train_gpu.json"), help="results file")
    p.add_argument("--allow-cpu", action="store_true", help="run without a CUDA device")
    args = p.parse_args(argv)
    import torch

    env = environment(args.model)
    for key, value in env.items():
        print(f"env: {key} = {value}")
    if not env["cuda"] and not args.allow_cpu:
        print(
            f"train_gpu.py: no CUDA device (torch {env['torch']} sees none); this measures "
            "an accelerator; on CPU run benchmarks/train_learning.py (or pass --allow-cpu)",
            file=sys.stderr,
        )
        return 2
    if env["model"] is None:
        print(
            f"train_gpu.py: model {args.model!r} is neither a folder nor in the local Hub "
            "cache, and HF_HUB_OFFLINE=1; pass a model folder or --model tiny",
            file=sys.stderr,
        )
        return 2
    if not env["cuda"] and args.dtype != "float32":
        args.dtype = "float32"
    device = env.get("device", "CPU")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        asked = args.model
        if args.model == "tiny":
            args.model = _tiny(work)
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
    meta = {"model": asked, "dtype": args.dtype, "device": device, "environment": env}
    args.json.write_text(json.dumps({**meta, "rows": rows}, indent=2) + "\n")
    print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
