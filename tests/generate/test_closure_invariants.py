"""Registry-wide invariants: every category × seeds × every frame, style, encoding, label pool.

For real task samples (not synthetic structures), each combination must: verify three
ways (solver == Ein == Python+NetworkX, inside ``sample_verified``), render
deterministically, be read back exactly by the independent reader, and have its stored
answer score strictly correct.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from closurebench.generate.closure import label_answer
from closurebench.scoring import compare, extract_answer
from closurebench.seeding import rng
from closurebench.surface.closure import (
    ENCODINGS,
    LABEL_POOLS,
    STYLES,
    certify,
    general_frames,
    kinship_frames,
    render_closure,
)
from closurebench.tasks.closure import CLOSURE_TASKS
from closurebench.tasks.closure.base import sample_verified


@pytest.mark.parametrize("name", list(CLOSURE_TASKS))
def test_category_under_every_surface(name: str) -> None:
    task = CLOSURE_TASKS[name]
    frames = kinship_frames() if task.kinship else general_frames()
    pools = list(LABEL_POOLS)
    combos = [(style, enc) for style in STYLES for enc in ENCODINGS]
    # Enough combinations that every frame, style, encoding and label pool occurs.
    total = max(len(combos), len(frames), len(pools))
    for k in range(total):
        style, encoding = combos[k % len(combos)]
        frame, pool = frames[k % len(frames)], pools[k % len(pools)]
        n = max(task.min_n, 4 + k % 9)
        v = sample_verified(task, 0, ("invariant", name, k), n=n, density=0.15 + 0.03 * (k % 8))
        kwargs: dict[str, Any] = {
            "encoding": encoding,
            "style": style,
            "domain": frame,
            "label_pool": pool,
        }
        r1 = render_closure(
            v.structure, g=rng(k, "surface", name), **kwargs,
        )  # fmt: skip
        r2 = render_closure(
            v.structure, g=rng(k, "surface", name), **kwargs,
        )  # fmt: skip
        assert r1 == r2, (name, k)
        assert (r1.encoding, r1.style, r1.domain, r1.label_pool) == (encoding, style, frame, pool)
        certify(v.structure, r1)
        labels = list(r1.labels)
        assert len(set(labels)) == len(labels) == v.structure.n
        reference = label_answer(task, v.answer, labels)
        got = extract_answer(json.dumps({"answer": reference}, ensure_ascii=False))
        assert got.status == "ok" and compare(task.result_type, got.value, reference)
        distinct = v.alt_answer is not None and v.alt_answer != v.answer
        if distinct and task.result_type == "float":
            # Floats match within 1e-2, so only a clearly different alternative must fail.
            distinct = abs(v.alt_answer - v.answer) > 0.02
        if distinct:
            alt = label_answer(task, v.alt_answer, labels)
            assert not compare(task.result_type, alt, reference), (name, k)
