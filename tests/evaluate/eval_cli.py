"""``closurebench eval`` for the harness tests: an in-process app and a child's launch line."""

from __future__ import annotations

import typer

from closurebench.cli import handle_errors
from closurebench.cli.eval import eval_cmd

#: ``closurebench eval`` as a one-command app, for typer's CliRunner (errors handled as
#: the ``closurebench`` command handles them).
EVAL_APP = typer.Typer()
EVAL_APP.command()(handle_errors(eval_cmd))

#: ``python -c`` source that runs ``closurebench eval`` in a child process.
EVAL_LAUNCH = (
    "import typer; from closurebench.cli import handle_errors; "
    "from closurebench.cli.eval import eval_cmd; typer.run(handle_errors(eval_cmd))"
)
