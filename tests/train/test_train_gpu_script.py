"""``benchmarks/train_gpu.py`` checks its machine first: on CPU it refuses in one line."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "train_gpu.py"


def _bench() -> Any:
    spec = importlib.util.spec_from_file_location("train_gpu", BENCH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_cuda_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    torch = pytest.importorskip("torch")
    if torch.cuda.is_available():
        pytest.skip("this machine has a CUDA device")
    out = tmp_path / "r.json"
    assert _bench().main(["--model", "tiny", "--json", str(out)]) == 2
    err = capsys.readouterr()
    assert err.err.strip().count("\n") == 0 and "no CUDA device" in err.err
    assert "env: cuda = False" in err.out and "env: vllm =" in err.out
    assert not out.exists()  # nothing ran


def test_a_model_that_is_not_there_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    bench = _bench()
    env = bench.environment("no-such-org/no-such-model")
    assert env["model"] is None
    code = bench.main(["--model", "no-such-org/no-such-model", "--allow-cpu"])
    assert code == 2 and "neither a folder nor in the local Hub cache" in capsys.readouterr().err
