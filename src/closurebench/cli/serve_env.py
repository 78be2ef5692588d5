"""``closurebench serve-env``: an OpenEnv-compatible RL environment server over HTTP.

::

    closurebench serve-env --port 8000 --suite grit --split train --seed 0
    curl -s -X POST localhost:8000/reset -d '{"index": 0}'
    curl -s -X POST localhost:8000/step -d '{"episode_id": "...", "action": {"message": "..."}}'

Endpoints, validation, limits and what runs where: :mod:`closurebench.train.openenv_server`.
Binds ``127.0.0.1`` unless ``--host`` says otherwise (there is no authentication).
Needs no extra.
"""

from __future__ import annotations

from typing import Annotated

import typer

__all__ = ["serve_env_cmd"]

_LOOPBACK = ("127.0.0.1", "::1", "localhost")


def serve_env_cmd(
    host: Annotated[
        str, typer.Option(help="Address to bind (default loopback; no authentication).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: a free one).")] = 8000,
    suite: Annotated[str, typer.Option(help="grit or closure.")] = "grit",
    split: Annotated[str, typer.Option(help="The split episodes are drawn from.")] = "train",
    seed: Annotated[int, typer.Option(min=0, help="The dataset's master seed.")] = 0,
    size: Annotated[int, typer.Option(min=1, help="Items per task.")] = 512,
    task: Annotated[
        str | None,
        typer.Option(help="One GRIT task or ClosureBench category (default: all of the suite)."),
    ] = None,
    mode: Annotated[
        str, typer.Option(help="Default episode mode: direct, cot or agent.")
    ] = "agent",
    max_calls: Annotated[int, typer.Option(min=1, help="Model turns per agent episode.")] = 6,
    max_tokens: Annotated[
        int, typer.Option(min=1, help="Tokens per agent episode (estimated: 4 characters each).")
    ] = 12_000,
    max_result_chars: Annotated[
        int, typer.Option(min=1, help="Characters of a <result> sent back.")
    ] = 8_000,
    max_episodes: Annotated[int, typer.Option(min=1, help="Episodes held at once.")] = 256,
    episode_ttl: Annotated[
        float, typer.Option(min=1.0, help="Seconds an episode is held.")
    ] = 3600.0,
    lambda_inv: Annotated[float, typer.Option(help="Weight of s_inv in the gated reward.")] = 1.0,
    rho_err: Annotated[float, typer.Option(help="Reward of an invalid episode.")] = -1.0,
    lenient_protocol: Annotated[
        bool,
        typer.Option(help="Accept untagged final answers (Answer: / \\boxed{}) in agent episodes."),
    ] = False,
    quiet: Annotated[bool, typer.Option(help="Do not log requests.")] = False,
) -> None:
    """Serve episodes over HTTP (OpenEnv's reset / step / state): the graph tool, our rewards."""
    from closurebench.train.openenv_server import EnvServer, serve
    from closurebench.train.rlenv import EpisodeLimits, RewardSettings, TaskSource

    env = EnvServer(
        TaskSource(suite, split=split, seed=seed, size=size, task=task),
        mode=mode,
        limits=EpisodeLimits(
            max_calls=max_calls, max_tokens=max_tokens, max_result_chars=max_result_chars
        ),
        rewards=RewardSettings(
            lambda_inv=lambda_inv, rho_err=rho_err, strict_protocol=not lenient_protocol
        ),
        max_episodes=max_episodes,
        max_age_s=episode_ttl,
    )
    if host not in _LOOPBACK:
        typer.echo(
            f"warning: binding {host}: anyone who can reach it can use this server (no "
            "authentication); put it behind your own proxy",
            err=True,
        )

    def log(line: str) -> None:
        typer.echo(line, err=True)

    serve(
        env,
        host,
        port,
        log=None if quiet else log,
        ready=lambda url: typer.echo(f"closurebench env server on {url} (Ctrl-C to stop)"),
    )
