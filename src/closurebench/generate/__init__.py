"""Dataset generation: split plans, per-graph pipelines and canonical JSONL writers."""
