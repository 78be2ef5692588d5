"""Generation on a Ray cluster: one Ray task per shard, merged into the unsharded run's bytes.

``closurebench generate closure|grit ... --backend ray [--shards N] [--ray-address ADDR]``
cuts the split into ``N`` shards (:mod:`closurebench.generate.shard`; default: the
cluster's CPUs, at most one per unit), runs each as one Ray task (the same
``write_split(config, ..., shard=Shard(i, N))`` a ``--shard i/N`` run calls, in a
temporary folder of the worker, which returns the shard's bytes and its manifest), writes
the shards the tasks return into a temporary folder beside ``--out`` and merges them with
:func:`closurebench.generate.merge.merge_shards`, which checks each against its manifest and
writes the bytes and the manifest of the unsharded run. The result is byte-identical to a
local run with the same arguments: the shards hold exactly its records, and the merge
refuses any that do not.

Ray is the optional extra ``ray`` (``pip install 'closurebench[ray]'``); without it,
:func:`require_ray` raises one :class:`~closurebench.errors.ConfigError` naming the extra.
:func:`ray_session` starts a local cluster (no address; shut down again afterwards),
connects to an existing one (``--ray-address auto``, ``HOST:6379``, ``ray://HOST:10001``),
or uses the one this process already started (``ray.init`` before the call; left running).
On an existing cluster every node needs the same closurebench installed.

Example (without Ray installed, the one line the CLI prints):
    >>> import importlib.util
    >>> if importlib.util.find_spec("ray") is None:
    ...     require_ray()
    ... else:
    ...     print("ray installed")  # doctest: +ELLIPSIS
    ray installed...
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from closurebench.errors import ClosureBenchError, ConfigError
from closurebench.generate import closure as closure_gen
from closurebench.generate import grit as grit_gen
from closurebench.generate.io import manifest_name
from closurebench.generate.merge import Merged, merge_shards
from closurebench.generate.shard import Shard

__all__ = [
    "BACKENDS",
    "RAY_EXTRA_LINE",
    "UV_HOOK",
    "RayGenerated",
    "check_backend",
    "cluster_cpus",
    "generate_with_ray",
    "ray_session",
    "require_ray",
    "task_failure",
    "write_shard",
]

#: ``--backend`` choices of ``generate`` and ``eval``.
BACKENDS = ("local", "ray")

#: What a missing Ray says (one line; the CLI prints it and exits).
RAY_EXTRA_LINE = (
    "--backend ray needs Ray, the optional extra 'ray': install it with "
    "`uv sync --extra ray` (or `pip install 'closurebench[ray]'`), or drop --backend ray"
)


#: Ray's switch of its ``uv run`` runtime-environment hook (see :func:`require_ray`).
UV_HOOK = "RAY_ENABLE_UV_RUN_RUNTIME_ENV"


def require_ray() -> ModuleType:
    """The ``ray`` module.

    Ray's ``uv run`` hook (which would start every worker through ``uv run`` in a copy of
    the working folder, an environment without the optional extra) is turned off unless
    ``RAY_ENABLE_UV_RUN_RUNTIME_ENV`` is set: workers run this interpreter (a local
    cluster) or the nodes' own (an existing one). It is read when Ray is imported, so a
    process that imports Ray itself sets it first.

    Raises:
        ConfigError: Ray is not installed (:data:`RAY_EXTRA_LINE`).
    """
    os.environ.setdefault(UV_HOOK, "0")
    try:
        import ray
    except ImportError:
        raise ConfigError(RAY_EXTRA_LINE) from None
    return ray


def check_backend(backend: str, ray_address: str | None) -> None:
    """Refuse an unknown ``--backend`` or a ``--ray-address`` without ``--backend ray``.

    Raises:
        ConfigError: naming the value and the choices.

    Example:
        >>> check_backend("local", None)
        >>> check_backend("dask", None)
        Traceback (most recent call last):
        ...
        closurebench.errors.ConfigError: --backend 'dask' is not one of: local, ray
    """
    if backend not in BACKENDS:
        raise ConfigError(f"--backend {backend!r} is not one of: {', '.join(BACKENDS)}")
    if ray_address is not None and backend != "ray":
        raise ConfigError(
            f"--ray-address {ray_address} applies to --backend ray only; add --backend ray "
            "or drop --ray-address"
        )


@contextlib.contextmanager
def ray_session(address: str | None = None) -> Iterator[ModuleType]:
    """Ray, initialised: the session already open, an existing cluster, or a local one.

    Args:
        address: An existing cluster (``auto``, ``HOST:PORT``, ``ray://HOST:PORT``);
            None: the session this process already opened, else a new local cluster with
            every CPU of this machine (shut down on exit).

    Yields:
        The ``ray`` module.

    Raises:
        ConfigError: Ray is not installed, or the cluster at ``address`` cannot be
            reached (naming it).
    """
    ray = require_ray()
    if ray.is_initialized():
        yield ray
        return
    kwargs: dict[str, Any] = {
        "logging_level": logging.ERROR,
        "configure_logging": True,
    }
    if address is None:
        kwargs["include_dashboard"] = False
    try:
        ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        where = f"the Ray cluster at {address!r}" if address else "a local Ray cluster"
        raise ConfigError(
            f"cannot start or reach {where} ({str(exc).splitlines()[0] if str(exc) else exc}); "
            "check --ray-address (e.g. `ray start --head` prints it) or drop it for a local "
            "cluster"
        ) from None
    try:
        yield ray
    finally:
        ray.shutdown()


def task_failure(exc: BaseException, what: str) -> Exception:
    """The error to raise for a failed Ray task: its own exception, or one line.

    A task that raised re-raises the exception it raised (a closurebench error keeps its
    one line and exit code); a task whose worker died, or that Ray could not run, becomes
    a :class:`~closurebench.errors.ClosureBenchError` naming ``what`` and Ray's reason.
    """
    cause = getattr(exc, "cause", None)
    if isinstance(cause, Exception):
        return cause
    reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return ClosureBenchError(f"{what}: the Ray task failed ({type(exc).__name__}: {reason})")


def cluster_cpus(ray: ModuleType) -> int:
    """CPUs of the connected cluster (at least 1)."""
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


@dataclass(frozen=True)
class RayGenerated:
    """What :func:`generate_with_ray` wrote.

    Attributes:
        merged: The merged split (path, manifest, records, shards).
        manifest: The merged manifest's contents.
    """

    merged: Merged
    manifest: dict[str, Any]


Config = closure_gen.ClosureConfig | grit_gen.GritConfig


def _units(config: Config) -> tuple[int, str]:
    """The split's units (what a shard is a block of) and their name."""
    if isinstance(config, grit_gen.GritConfig):
        return config.graphs, "graphs"
    return config.structures(), "structures"


def _whole_name(config: Config) -> str:
    if isinstance(config, grit_gen.GritConfig):
        return grit_gen.split_file_name(config)
    return closure_gen.split_file_name(config)


def write_shard(config: Config, shard: Shard) -> tuple[str, bytes, bytes]:
    """Write one shard in a temporary folder; return its file name, bytes and manifest.

    What one Ray task runs (the same call as ``generate ... --shard i/N``).

    Example:
        >>> cfg = closure_gen.ClosureConfig(count=2, categories=("reachability",))
        >>> name, data, man = write_shard(cfg, Shard(2, 2))
        >>> name, data.count(b"\\n"), b'"shard"' in man
        ('closure-heldout.shard-2-of-2.jsonl', 1, True)
    """
    with tempfile.TemporaryDirectory(prefix="closurebench-shard-") as tmp:
        if isinstance(config, grit_gen.GritConfig):
            path, man, _ = grit_gen.write_split(config, tmp, shard=shard)
        else:
            path, man, _ = closure_gen.write_split(config, tmp, shard=shard)
        return path.name, path.read_bytes(), man.read_bytes()


def generate_with_ray(
    config: Config,
    out: str | Path,
    *,
    shards: int | None = None,
    address: str | None = None,
    overwrite: bool = False,
    progress: Callable[[Shard], None] | None = None,
) -> RayGenerated:
    """Generate ``config`` as Ray tasks over shards and merge them into ``out``.

    Args:
        config: The split (ClosureBench or GRIT).
        out: The output folder (as ``generate --out``).
        shards: How many shards (tasks); default: the cluster's CPUs, at most one per
            unit of the split.
        address: An existing Ray cluster (None: see :func:`ray_session`).
        overwrite: Replace an existing split in ``out``.
        progress: Called with each shard as its task finishes.

    Returns:
        The merged split, byte-identical to a local run of ``config``.

    Raises:
        ConfigError: Ray missing, a bad shard count, an existing output without
            ``overwrite``, or an unreachable cluster.
        ClosureBenchError: a shard's generation failed (its own error, re-raised).
    """
    units, unit = _units(config)
    target = Path(out) / _whole_name(config)
    if target.exists() and not overwrite:
        raise ConfigError(
            f"{target} exists; pass --overwrite to replace it (and its manifest), or choose "
            "another --out"
        )
    with ray_session(address) as ray:
        count = shards if shards is not None else min(cluster_cpus(ray), units)
        if count < 1:
            raise ConfigError(f"--shards must be >= 1, got {count}")
        Shard(1, count).range(units, unit)  # more shards than units: refused, named
        task = ray.remote(max_retries=1)(write_shard)
        config_ref = ray.put(config)
        refs = {task.remote(config_ref, Shard(i, count)): i for i in range(1, count + 1)}
        Path(out).mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=".ray-shards-", dir=out))
        try:
            paths: list[Path] = []
            pending = list(refs)
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for ref in done:
                    try:
                        name, data, man = ray.get(ref)
                    except ray.exceptions.RayError as exc:
                        for other in pending:
                            ray.cancel(other)
                        raise task_failure(exc, f"shard {refs[ref]}/{count}") from None
                    path = tmp / name
                    path.write_bytes(data)
                    path.with_name(manifest_name(name)).write_bytes(man)
                    paths.append(path)
                    if progress is not None:
                        progress(Shard(refs[ref], count))
            merged = merge_shards(paths, out, overwrite=overwrite)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    manifest = json.loads(merged.manifest_path.read_text(encoding="utf-8"))
    return RayGenerated(merged, manifest)
