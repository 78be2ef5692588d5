"""The child side of :func:`~closurebench.sandbox.ein_runner.run_ein`: a warm Ein worker.

Run as ``python -I -B ein_worker.py SRC_ROOT CONFIG``: sets its rlimits, imports
:mod:`closurebench.ein` once (about a second: numpy, scipy, lark), installs the audit
hook of :mod:`closurebench.sandbox.bootstrap` (Ein does no I/O, so nothing should trip
it), then answers requests: one JSON line on stdin (``{"source", "limits"}``), one JSON
line on its original stdout. Every run starts clean: Ein keeps no state between runs
(its parser is a pure function of the text); the worker collects garbage after each
run and sets its CPU soft limit to what it has used plus the run's ``cpu_seconds``.
The parent replaces a worker after any run that did not end in ``ok``,
``syntax_error`` or ``runtime_error``.

A reply carries each printed value's JSON once: when the result is the last printed
value (it is whenever the program prints), ``"value"`` is left out and
``"value_is_last_printed"`` says so, so the reply is about as long as the run's
output, which :attr:`closurebench.ein.Limits.max_output_bytes` bounds.
"""

from __future__ import annotations

import gc
import json
import os
import sys
from typing import Any

__all__ = ["handle", "main"]


def handle(request: dict[str, Any]) -> dict[str, Any]:
    """Run one request's program; the reply (never raises for the program)."""
    from closurebench import ein
    from closurebench.ein import errors

    try:
        limits = ein.Limits(**request.get("limits", {}))
        result = ein.run(str(request["source"]), limits=limits)
    except errors.EinTimeoutError as err:
        return {"outcome": "timeout", "error": type(err).__name__, "message": str(err)}
    except errors.EinBudgetError as err:
        return {"outcome": "memory_limit", "error": type(err).__name__, "message": str(err)}
    except errors.EinOutputLimitError as err:
        return {"outcome": "output_limit", "error": type(err).__name__, "message": str(err)}
    except errors.EinSyntaxError as err:
        return {"outcome": "syntax_error", "error": type(err).__name__, "message": str(err)}
    except errors.EinError as err:
        # Any other resource cap is one on size (elements, einsum work): a memory limit.
        memory = isinstance(err, errors.ResourceLimitError)
        outcome = "memory_limit" if memory else "runtime_error"
        return {"outcome": outcome, "error": type(err).__name__, "message": str(err)}
    except MemoryError:
        return {"outcome": "memory_limit", "error": "MemoryError", "message": "out of memory"}
    try:
        reply: dict[str, Any] = {
            "outcome": "ok",
            "printed": [[label, ein.to_json_value(v)] for label, v in result.printed],
            "label": result.label,
        }
        if result.printed and result.printed[-1][1] is result.value:
            reply["value_is_last_printed"] = True
        else:
            reply["value"] = ein.to_json_value(result.value)
    except MemoryError:
        message = "out of memory while converting the printed values to JSON"
        return {"outcome": "memory_limit", "error": "MemoryError", "message": message}
    return reply


def _cpu_used() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str]) -> None:
    """Serve requests until stdin closes (the parent went away or retired the worker)."""
    sys.path.insert(0, argv[1])
    cfg = json.loads(argv[2])
    sys.path.extend(str(p) for p in cfg.get("sys_path", ()))
    from closurebench.sandbox import bootstrap

    bootstrap.become(cfg.get("identity"))  # before anything of a request is read
    bootstrap.set_rlimits(cfg["rlimits"])
    bootstrap.exit_on_cpu_limit()
    import resource

    import closurebench.ein  # noqa: F401  (warm: the import is most of a cold run)

    replies = os.fdopen(os.dup(1), "wb")
    sys.stdout = sys.stderr  # a stray print must not corrupt the replies
    if cfg.get("landlock"):  # the unsafe level: the runtime's files only
        bootstrap.confine(cfg["landlock"])
    if cfg.get("exec_filter"):  # the allow-list: no process, socket or execve from here on
        bootstrap.load_filter(bytes.fromhex(str(cfg["exec_filter"])))
    bootstrap.install_hook(2, cfg["tmp"], allow_setrlimit=True)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    replies.write(b'{"ready": true}\n')
    replies.flush()
    for line in sys.stdin.buffer:
        try:
            request = json.loads(line)
        except ValueError:
            break
        soft = int(_cpu_used() + float(cfg["cpu_seconds"])) + 1
        if hard != resource.RLIM_INFINITY:
            soft = min(soft, hard)
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
        reply = handle(request)
        try:
            data = (json.dumps(reply) + "\n").encode()
        except (TypeError, ValueError, MemoryError):
            data = b'{"outcome": "memory_limit", "error": "MemoryError", "message": "reply"}\n'
        replies.write(data)
        replies.flush()
        del reply, data, request
        gc.collect()


if __name__ == "__main__":
    main(sys.argv)
