"""CPU demonstration: a tiny model memorises a small seen set, and the probe says so.

Not a test and not in CI (a few minutes on 2 cores; needs the ``train`` extra). Offline:
the model is built here from scratch, nothing is downloaded.

1. **Seen set**: ``--seen`` boolean ClosureBench instances of the ``finetune`` split
   (half true, half false), written as a dataset file.
2. **Model**: a byte-level BPE tokenizer trained on the seen prompts and a 2-layer Llama
   (hidden 128) with random weights — the base checkpoint, which knows nothing.
3. **Training**: ``closurebench export sft --target answer`` records of the seen set,
   trained with ``closurebench train sft`` (full fine-tuning, ``--epochs`` passes,
   checkpoints every ``--save-steps`` steps).
4. **Probe**: ``closurebench memorisation --provider transformers`` on the base model and
   every checkpoint, seeds 42, 137, 256: seen, fresh (new instances of the same categories
   and sizes) and re-worded (the seen graphs in new words) accuracy with 95 % intervals.

A model that learnt the file rather than the task rises to 1.0 on seen and stays near
chance (the majority answer's share, ~0.5 here) on fresh and re-worded: the probe
detects memorisation when the lower end of the ``seen − fresh`` and ``seen − reworded``
intervals of the last checkpoint are above zero. The script prints the probe's table,
the verdict and the wall time of each phase::

    uv run python benchmarks/train_cpu_demo.py [--seen 16] [--epochs 30] [--out DIR]

Record the figures in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "train"))  # the tiny model's tokenizer


def build_seen(n: int, out: Path) -> list:
    """``n`` boolean finetune-split instances, half true and half false."""
    import closurebench
    from closurebench.jsonl import canonical_json

    records = closurebench.generate_split("finetune", seed=0, count=40 * n)
    boolean = [r for r in records if r.result_type == "boolean"]
    trues = [r for r in boolean if r.answer is True][: n // 2]
    falses = [r for r in boolean if r.answer is False][: n - n // 2]
    if len(trues) + len(falses) < n:
        raise SystemExit(f"the finetune split gave too few boolean instances for --seen {n}")
    seen = trues + falses
    out.write_text("".join(canonical_json(r.to_json()) + "\n" for r in seen), encoding="utf-8")
    return seen


def build_base(seen: list, out: Path, seed: int) -> Path:
    """A tokenizer trained on the seen prompts and a random-weight 2-layer Llama."""
    from tiny_model import build_tiny_chat_model

    from closurebench.evaluate.modes import get_mode

    mode = get_mode("direct")
    texts = [m["content"] for r in seen for m in mode.messages(r)]
    texts += ['{"answer": true}', '{"answer": false}']
    return build_tiny_chat_model(
        out, texts, seed=seed, vocab_size=2000, hidden_size=128, intermediate_size=256
    )


def run_cli(*args: str) -> None:
    """Run one ``closurebench`` command in a fresh process (as a user would)."""
    cmd = [sys.executable, "-m", "closurebench", *args]
    got = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if got.returncode != 0:
        sys.stderr.write(got.stdout[-4000:] + got.stderr[-4000:])
        raise SystemExit(f"failed ({got.returncode}): {' '.join(cmd)}")


def main(argv: list[str] | None = None) -> int:
    """Build, train, probe; print the table and the verdict."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--seen", type=int, default=16, help="seen instances (boolean)")
    p.add_argument("--epochs", type=float, default=30)
    p.add_argument("--learning-rate", type=float, default=2e-3)
    p.add_argument("--save-steps", type=int, default=30)
    p.add_argument("--seed", type=int, default=0, help="weights and training order")
    p.add_argument("--out", type=Path, default=Path("runs/train-cpu-demo"))
    args = p.parse_args(argv)
    out: Path = args.out
    if out.exists() and any(out.iterdir()):
        raise SystemExit(f"{out} is not empty; pass another --out or remove it")
    out.mkdir(parents=True, exist_ok=True)
    times: dict[str, float] = {}

    t0 = time.perf_counter()
    seen_file = out / "seen.jsonl"
    seen = build_seen(args.seen, seen_file)
    base = build_base(seen, out / "base", args.seed)
    times["build"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    sft = out / "sft.jsonl"
    run_cli("export", "sft", str(seen_file), "--target", "answer", "--out", str(sft))
    recipe = out / "recipe.toml"
    recipe.write_text(
        f'preset = "closurebench-sft"\nlora = false\n[model]\nname = "{base}"\n'
        f"[optim]\nlearning_rate = {args.learning_rate}\nepochs = {args.epochs}\n"
        f'batch_size = 4\nscheduler = "constant"\nseed = {args.seed}\n'
        f'[output]\ndir = "{out / "train"}"\nsave_steps = {args.save_steps}\n',
        encoding="utf-8",
    )
    run_cli("train", "sft", "--data", str(sft), "--recipe", str(recipe), "--no-progress")
    times["train"] = time.perf_counter() - t0

    t0 = time.perf_counter()
    ckpts = sorted((out / "train").glob("checkpoint-*"), key=lambda d: int(d.name.split("-")[1]))
    probe = out / "probe"
    cmd = ["memorisation", "--model", str(base), "--seen", str(seen_file), "--out", str(probe)]
    for c in ckpts:
        cmd += ["--checkpoints", str(c)]
    cmd += ["--provider", "transformers", "--device", "cpu", "--max-tokens", "8", "--no-progress"]
    run_cli(*cmd)
    times["probe"] = time.perf_counter() - t0

    from closurebench.schema.memorisation import MemorisationProbe

    record = MemorisationProbe.model_validate(
        json.loads((probe / "memorisation.json").read_text(encoding="utf-8"))
    )
    print(f"seen {args.seen} boolean instances; seeds {record.seeds}; {len(ckpts)} checkpoints\n")
    print("| checkpoint | epoch | seen | fresh | reworded | seen − fresh | seen − reworded |")
    print("|---|---|---|---|---|---|---|")

    def cell(iv: object) -> str:
        v, lo, hi = iv.value, iv.low, iv.high  # type: ignore[attr-defined]
        return "n/a" if v is None else f"{v:.3f} [{lo:.2f}, {hi:.2f}]"

    for c in record.checkpoints:
        sets = {s.set: s.strict for s in c.sets}
        gaps = {g.name: g.strict for g in c.gaps}
        epoch = "0 (base)" if c.base else f"{c.epoch:g}" if c.epoch is not None else "?"
        print(
            f"| {c.label} | {epoch} | {cell(sets['seen'])} | {cell(sets['fresh'])} | "
            f"{cell(sets['reworded'])} | {cell(gaps['seen-fresh'])} | "
            f"{cell(gaps['seen-reworded'])} |"
        )
    last = record.checkpoints[-1]
    lows = [g.strict.low for g in last.gaps]
    detected = all(low is not None and low > 0 for low in lows)
    print(f"\nmemorisation detected at {last.label}: {'yes' if detected else 'no'}")
    print(", ".join(f"{k} {v:.0f} s" for k, v in times.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
