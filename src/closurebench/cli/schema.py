"""``closurebench schema closure|grit|result|summary|sft|grpo|...``: a record's JSON Schema.

::

    closurebench schema closure            # the ClosureBench instance record
    closurebench schema grit               # the GRIT instance record
    closurebench schema result             # one line of RUN_DIR/results.jsonl
    closurebench schema summary            # RUN_DIR/summary.json
    closurebench schema sft                # one line of `closurebench export sft`
    closurebench schema grpo               # one line of `closurebench export grpo`
    closurebench schema memorisation       # OUT/memorisation.json of `closurebench memorisation`
    closurebench schema table6             # OUT/table6.json of `memorisation --table6`
    closurebench schema samples            # OUT/samples.json of `eval --samples K`
    closurebench schema closure --validate DATA.jsonl   # check a file against it

Every generated split also writes its schema beside ``manifest.json``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

__all__ = ["schema_cmd"]


def schema_cmd(
    name: Annotated[
        str,
        typer.Argument(
            help="Which record: closure, grit, result, summary, sft, grpo, memorisation, table6 "
            "or samples."
        ),
    ],
    validate: Annotated[
        Path | None,
        typer.Option("--validate", help="Validate every line of this JSONL file instead."),
    ] = None,
) -> None:
    """Print the JSON Schema of a record type (or validate a file against it)."""
    from closurebench.errors import ClosureBenchError, ConfigError
    from closurebench.generate.io import iter_instances
    from closurebench.jsonl import iter_objects
    from closurebench.schema import (
        SCHEMAS,
        parse_memorisation,
        parse_result,
        parse_samples,
        parse_summary,
        parse_training,
        schema_for,
    )

    if name not in SCHEMAS:
        raise ConfigError(f"unknown schema {name!r}; choose one of {', '.join(SCHEMAS)}")
    if validate is None:
        typer.echo(json.dumps(schema_for(name), indent=2, sort_keys=True, ensure_ascii=False))
        return
    count = 0
    if name == "result":
        for lineno, obj in iter_objects(validate, what=f"{name} file"):
            parse_result(obj, f"{validate}:{lineno}")
            count += 1
    elif name in ("memorisation", "table6"):
        if not validate.is_file():
            raise ClosureBenchError(f"{validate}: no such file")
        parse_memorisation(validate.read_text(encoding="utf-8"), name, str(validate))
        count = 1
    elif name == "samples":
        if not validate.is_file():
            raise ClosureBenchError(f"{validate}: no such file")
        parse_samples(validate.read_text(encoding="utf-8"), str(validate))
        count = 1
    elif name == "summary":
        if not validate.is_file():
            raise ClosureBenchError(f"{validate}: no such file")
        try:
            obj = json.loads(validate.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ClosureBenchError(f"{validate}: malformed JSON ({exc.msg})") from None
        parse_summary(obj, str(validate))
        count = 1
    elif name in ("sft", "grpo"):
        for lineno, obj in iter_objects(validate, what=f"{name} file"):
            parse_training(obj, name, f"{validate}:{lineno}")
            count += 1
    else:
        # The dataset loader: every line validated, ids unique, UTF-8.
        for record in iter_instances(validate):
            if record.suite != name:
                raise ClosureBenchError(
                    f"{validate}:{count + 1}: a {record.suite} record, not a {name} one; "
                    f"use `closurebench schema {record.suite} --validate`"
                )
            count += 1
    typer.echo(f"{validate}: {count} {name} records, all valid")
