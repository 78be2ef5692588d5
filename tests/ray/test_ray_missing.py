"""Without Ray (the optional extra), ``--backend ray`` says so in one line; the rest works.

Ray is hidden from the import system here (``sys.modules["ray"] = None``), so this runs
whether or not the extra is installed.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from closurebench.cli import app as cli_app
from closurebench.cli import handle_errors
from closurebench.cli.eval import eval_cmd
from closurebench.errors import ConfigError
from closurebench.generate.ray_backend import RAY_EXTRA_LINE, require_ray

EVAL_APP = typer.Typer()
EVAL_APP.command()(handle_errors(eval_cmd))


@pytest.fixture(autouse=True)
def _no_ray(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)


def test_require_ray_names_the_extra() -> None:
    with pytest.raises(ConfigError) as err:
        require_ray()
    assert str(err.value) == RAY_EXTRA_LINE and "'ray'" in RAY_EXTRA_LINE


def test_generate_with_backend_ray_exits_1_with_one_line(tmp_path: Path) -> None:
    run = CliRunner().invoke(
        cli_app, ["generate", "closure", "--count", "2", "--out", str(tmp_path), "--backend", "ray"]
    )
    assert run.exit_code == 1
    assert run.stderr.strip().splitlines() == [f"error: {RAY_EXTRA_LINE}"]
    assert not any(tmp_path.iterdir())


def test_eval_with_backend_ray_exits_1_naming_the_extra(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("")
    run = CliRunner().invoke(
        EVAL_APP, [str(data), "--model", "random", "--out", str(tmp_path / "r"), "--backend", "ray"]
    )
    assert run.exit_code == 1
    assert "uv sync --extra ray" in run.stderr and "Traceback" not in run.output


def test_misused_flags_are_refused_without_ray(tmp_path: Path) -> None:
    base = ["closure", "--count", "2", "--out", str(tmp_path)]
    for extra, words in (
        (["--shards", "2"], "--shards applies to --backend ray"),
        (["--ray-address", "auto"], "--ray-address auto applies to --backend ray only"),
        (["--backend", "dask"], "--backend 'dask' is not one of: local, ray"),
    ):
        run = CliRunner().invoke(cli_app, ["generate", *base, *extra])
        assert run.exit_code == 1 and words in run.stderr, run.output
