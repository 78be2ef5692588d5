"""Does a model trained with closurebench learn? SFT then GRPO on CPU, before and after.

Not a test and not in CI (minutes on 2 cores; needs the ``train`` extra). Offline: the
model is built here from scratch (a byte-level BPE tokenizer trained on the data's text
and a 2-layer Llama with random weights), nothing is downloaded.

1. **Data**: ``--train`` ClosureBench instances of the ``finetune`` split and
   ``--heldout`` of the ``heldout`` split (disjoint structures), exported as
   ``closurebench export sft --target answer`` rows (the reply is ``{"answer": ...}``)
   and ``export grpo`` rows (direct mode).
2. **SFT** (``closurebench train sft``'s trainer, full fine-tuning, the default loss on
   the model's own tokens), a checkpoint every ``--save-steps`` steps. Each checkpoint
   (and the untrained model, step 0) is measured on the held-out rows: the loss on the
   reply's tokens, and greedy replies scored by the gated reward's parts — *format-valid*
   (the reply parses in direct mode: an answer is present) and *correct*.
3. **GRPO** from the last SFT checkpoint with the gated reward, ``--grpo-steps`` steps,
   for each of ``--seeds``: the mean reward and its parts per step (from the trainer's
   metrics log: ``valid``, ``r_ans`` — the correct share — and ``s_inv``), then the first
   and last ``--window`` steps compared, mean ± spread over the seeds.

It prints the tables and writes ``--out/learning.json`` (every figure, wall times,
tokens/s and the peak resident memory)::

    uv run python benchmarks/train_learning.py [--train 96] [--heldout 32] [--out DIR]

Record the figures in ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests" / "train"))  # the tiny model


def _rows(split: str, count: int, seed: int) -> tuple[list[Any], list[dict], list[dict]]:
    """``count`` instances of ``split``: the records, their SFT rows and GRPO rows."""
    import closurebench
    from closurebench.train.export import grpo_records, sft_records

    records = closurebench.generate_split(split, seed=seed, count=count)
    sft = [r.to_json() for r in sft_records(records, "answer")]
    grpo = [r.to_json() for r in grpo_records(records, "direct")]
    return records, sft, grpo


def _heldout_metrics(model: Any, tok: Any, rows: list[dict], grpo: list[dict]) -> dict:
    """Held-out loss on the reply's tokens and greedy replies' format-valid/correct rate."""
    import torch

    from closurebench.train.grpo import TrainingReward
    from closurebench.train.sft import to_trl_row, tokenize_assistant_loss

    model.eval()
    losses, tokens = 0.0, 0
    with torch.no_grad():
        for row in rows:
            t = tokenize_assistant_loss(tok, to_trl_row(row, "full"))
            ids = torch.tensor([t["input_ids"]])
            labels = torch.tensor(
                [
                    [
                        i if m else -100
                        for i, m in zip(t["input_ids"], t["assistant_masks"], strict=True)
                    ]
                ]
            )
            n = sum(t["assistant_masks"][1:])  # the positions the loss predicts
            out = model(input_ids=ids, labels=labels)
            losses += float(out.loss) * n
            tokens += n
        replies = []
        for row in grpo:
            prompt = json.loads(row["prompt"]) if isinstance(row["prompt"], str) else row["prompt"]
            ids = tok.apply_chat_template(
                prompt, add_generation_prompt=True, tokenize=True, return_dict=True
            )["input_ids"]
            gen = model.generate(
                input_ids=torch.tensor([ids]), max_new_tokens=24, do_sample=False,
                pad_token_id=tok.pad_token_id,
            )  # fmt: skip
            replies.append(tok.decode(gen[0][len(ids) :], skip_special_tokens=True))
    parts = TrainingReward().reward("direct").parts(replies, [r["ground_truth"] for r in grpo])
    n = max(len(parts), 1)
    return {
        "loss": losses / max(tokens, 1),
        "format_valid": sum(p.valid for p in parts) / n,
        "correct": sum(p.correct for p in parts) / n,
        "example_reply": replies[0] if replies else "",
    }


def _peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--train", type=int, default=96)
    ap.add_argument("--heldout", type=int, default=32)
    ap.add_argument("--epochs", type=float, default=6.0)
    ap.add_argument("--save-steps", type=int, default=12)
    ap.add_argument("--grpo-steps", type=int, default=20)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--window", type=int, default=5)
    ap.add_argument("--out", type=Path, default=Path("/tmp/closurebench-learning"))
    args = ap.parse_args(argv)

    import shutil

    import torch
    from tiny_model import build_tiny_chat_model
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from closurebench.train.grpo import build_trainer, load_grpo_recipe
    from closurebench.train.sft import build_sft_trainer, load_sft_recipe

    torch.set_num_threads(2)
    shutil.rmtree(args.out, ignore_errors=True)
    args.out.mkdir(parents=True)
    report: dict[str, Any] = {"args": {k: str(v) for k, v in vars(args).items()}}
    t0 = time.perf_counter()
    _, sft_train, grpo_train = _rows("finetune", args.train, 0)
    _, sft_held, grpo_held = _rows("heldout", args.heldout, 0)
    texts = [m["content"] for r in sft_train + sft_held for m in r["messages"]]
    base = build_tiny_chat_model(
        args.out / "base", texts, vocab_size=2000, hidden_size=128, intermediate_size=256
    )
    report["data_seconds"] = round(time.perf_counter() - t0, 1)

    # ---------------------------------------------------------------- SFT
    recipe = load_sft_recipe(
        None,
        overrides={
            "model": {"name": str(base)},
            "lora": False,
            "optim": {
                "batch_size": 8, "epochs": args.epochs, "learning_rate": 2e-3,
                "scheduler": "constant", "seed": 0,
            },
            "output": {"dir": str(args.out / "sft"), "save_steps": args.save_steps},
            "sft": {"max_length": 4096},
        },
    )  # fmt: skip
    trainer = build_sft_trainer(recipe, sft_train, progress=False)
    tokens = sum(len(r["input_ids"]) for r in trainer.train_dataset)
    t1 = time.perf_counter()
    trainer.train()
    sft_s = time.perf_counter() - t1
    trainer.save_model(str(args.out / "sft" / "final"))
    trainer.processing_class.save_pretrained(str(args.out / "sft" / "final"))
    curve = []
    saved = (args.out / "sft").glob("checkpoint-*")
    points = [(0, base), *sorted((int(p.name.split("-")[1]), p) for p in saved)]
    tok = AutoTokenizer.from_pretrained(base)
    for step, folder in points:
        model = AutoModelForCausalLM.from_pretrained(folder)
        m = _heldout_metrics(model, tok, sft_held, grpo_held)
        curve.append({"step": step, **m})
        print(
            f"sft step {step:4d}: held-out loss {m['loss']:.3f}  format-valid "
            f"{m['format_valid']:.2f}  correct {m['correct']:.2f}  e.g. {m['example_reply']!r}"
        )
    report["sft"] = {
        "rows": len(trainer.train_dataset),
        "steps": int(trainer.state.global_step),
        "seconds": round(sft_s, 1),
        "tokens_per_second": round(tokens * args.epochs / sft_s, 1),
        "curve": curve,
    }
    last = max(points)[1]

    # ---------------------------------------------------------------- GRPO
    runs = []
    for seed in [int(s) for s in args.seeds.split(",")]:
        out = args.out / f"grpo-{seed}"
        g = load_grpo_recipe(
            None,
            overrides={
                "model": {"name": str(last)},
                "lora": False,
                "optim": {
                    "batch_size": 4, "max_steps": args.grpo_steps, "learning_rate": 1e-4,
                    "seed": seed,
                },
                "output": {"dir": str(out)},
                "grpo": {"num_generations": 4, "max_completion_length": 24},
            },
        )  # fmt: skip
        t2 = time.perf_counter()
        grpo, _ = build_trainer(g, grpo_train, progress=False)
        grpo.train()
        seconds = time.perf_counter() - t2
        logs = [json.loads(x) for x in (out / "metrics.jsonl").read_text().splitlines()]
        steps = [m for m in logs if "reward" in m and "closurebench/valid" in m]
        runs.append(
            {
                "seed": seed,
                "seconds": round(seconds, 1),
                "reward": [m["reward"] for m in steps],
                "valid": [m["closurebench/valid"] for m in steps],
                "r_ans": [m["closurebench/r_ans"] for m in steps],
                "s_inv": [m["closurebench/s_inv"] for m in steps],
            }
        )
        print(f"grpo seed {seed}: rewards {[round(r, 2) for r in runs[-1]['reward']]}")
    w = args.window

    def summary(key: str) -> dict[str, Any]:
        first = [statistics.fmean(r[key][:w]) for r in runs]
        final = [statistics.fmean(r[key][-w:]) for r in runs]
        spread = statistics.pstdev
        return {
            "first": round(statistics.fmean(first), 3),
            "first_sd": round(spread(first), 3),
            "last": round(statistics.fmean(final), 3),
            "last_sd": round(spread(final), 3),
        }

    report["grpo"] = {
        "runs": runs,
        "reward": summary("reward"),
        "valid": summary("valid"),
        "r_ans": summary("r_ans"),
        "s_inv": summary("s_inv"),
    }
    report["peak_rss_mib"] = round(_peak_mib(), 1)
    report["wall_seconds"] = round(time.perf_counter() - t0, 1)
    (args.out / "learning.json").write_text(json.dumps(report, indent=2))
    for key in ("reward", "valid", "r_ans", "s_inv"):
        s = report["grpo"][key]
        if s:
            print(
                f"grpo {key}: first {w} steps {s['first']:.3f} ± {s['first_sd']:.3f}, last {w} "
                f"{s['last']:.3f} ± {s['last_sd']:.3f} (mean ± sd over {len(runs)} seeds)"
            )
    print(f"peak RSS {report['peak_rss_mib']} MiB, wall {report['wall_seconds']} s")
    print(f"wrote {args.out / 'learning.json'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
