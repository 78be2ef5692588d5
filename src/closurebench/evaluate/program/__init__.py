"""Program synthesis: the pieces the program modes share (paper §4.5).

* :mod:`.extract` — the program in a reply, the answer in a program's printed output;
* :mod:`.convert` — a printed value as an answer of the instance's result type (Ein
  indices and 0/1 vectors mapped to labels);
* :mod:`.graphs` — whether the program read the graph right (the graph-reading class);
* :mod:`.oracle` — the reference program of an instance (``--model oracle-program``).

The modes themselves are :mod:`closurebench.evaluate.modes.program`.
"""

from __future__ import annotations

from closurebench.evaluate.program.convert import ein_answer, python_answer
from closurebench.evaluate.program.extract import (
    MAX_PROGRAM_CHARS,
    extract_program,
    last_printed_line,
    parse_printed,
)
from closurebench.evaluate.program.graphs import (
    ein_edge_lists,
    ein_graph_read,
    python_graph_read,
    true_graphs,
)
from closurebench.evaluate.program.oracle import oracle_program

__all__ = [
    "MAX_PROGRAM_CHARS",
    "ein_answer",
    "ein_edge_lists",
    "ein_graph_read",
    "extract_program",
    "last_printed_line",
    "oracle_program",
    "parse_printed",
    "python_answer",
    "python_graph_read",
    "true_graphs",
]
