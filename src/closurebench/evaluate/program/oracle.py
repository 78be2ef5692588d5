"""Reference programs for an instance: the offline yardstick of the program modes.

:func:`oracle_program` gives the program a perfect model would write for a record in
program mode, so ``--model oracle-program`` exercises the whole path — prompt,
extraction, sandbox, conversion, graph-reading check, scoring — and must reach 100 %:

* Ein (ClosureBench): the record's own verified Ein program. It computes over node
  indices in the order the question lists the entities, as the prompt asks.
* Python (ClosureBench): the record's own verified Python + NetworkX program, with its
  final ``print`` re-written to print the answer over labels (a set as the sorted list
  of its labels, one node as its label).
* Python (GRIT; its records carry no program): a NetworkX program that builds the
  view's graph over its names (with weights) and prints the task's own NetworkX
  expression of the answer (:meth:`~closurebench.tasks.grit.GritTask.networkx_answer`:
  shortest path's path cost), or the certified answer where the task has none (an exact
  solver for the NP-hard ones is not what a model would write).

Example:
    >>> from closurebench.generate.closure import ClosureConfig, generate_records
    >>> rec = generate_records(ClosureConfig(count=1, categories=("negative_reach",)))[0]
    >>> print(oracle_program(rec, "python").splitlines()[-1])
    print(json.dumps(_in_labels(sorted(answer))))
"""

from __future__ import annotations

import json
from typing import Any

from closurebench.errors import ConfigError
from closurebench.schema import ClosureInstance, GritInstance, ResultType

__all__ = ["oracle_program"]

_CONVERT = {
    ResultType.SET: "sorted(LABELS[i] for i in x)",
    ResultType.STRING: "LABELS[x]",
}


def _closure_python(record: ClosureInstance) -> str:
    lines = record.programs["python"].rstrip("\n").split("\n")
    last = lines[-1]
    head, tail = "print(json.dumps(", "))"
    if not (last.startswith(head) and last.endswith(tail)):
        raise ConfigError(
            f"{record.id}: its Python program does not end with print(json.dumps(...)); "
            "regenerate the file"
        )
    expr = last[len(head) : -len(tail)]
    convert = _CONVERT.get(ResultType(record.result_type), "x")
    prelude = [
        f"LABELS = {json.dumps(list(record.labels), ensure_ascii=False)}",
        f"def _in_labels(x):\n    return {convert}",
    ]
    body = lines[:-1]
    # after the imports, so the program still starts like the record's
    at = next((i for i, line in enumerate(body) if not line.startswith("import ")), len(body))
    last = f"print(json.dumps(_in_labels({expr})))"
    return "\n".join([*body[:at], *prelude, *body[at:], last]) + "\n"


def _grit_python(record: GritInstance) -> str:
    g = record.graph
    names = list(record.names)
    cls = "nx.DiGraph" if g.directed else "nx.Graph"
    edges = [(names[u], names[v], w) for u, v, w in g.edges]
    lines = [
        "import json",
        "import networkx as nx",
        f"G = {cls}()",
        f"G.add_nodes_from({json.dumps(names, ensure_ascii=False)})",
        f"G.add_weighted_edges_from({json.dumps(edges, ensure_ascii=False)})",
    ]
    from closurebench.tasks.grit import get

    expression = get(str(record.task)).networkx_answer(names, dict(record.params))
    if expression is not None:  # the answer computed as a model would
        lines.append(f"print({expression})")
    else:
        lines.append(f"print(json.dumps({json.dumps(record.answer, ensure_ascii=False)}))")
    return "\n".join(lines) + "\n"


def oracle_program(record: Any, language: str) -> str:
    """The reference program of ``record`` in ``language`` (``"ein"`` or ``"python"``).

    Raises:
        ConfigError: for Ein on a GRIT record, or an unknown language.
    """
    if language == "ein":
        if not isinstance(record, ClosureInstance):
            raise ConfigError(f"{record.id}: Ein programs are for ClosureBench records")
        return record.programs["ein"]
    if language == "python":
        if isinstance(record, GritInstance):
            return _grit_python(record)
        return _closure_python(record)
    raise ConfigError(f"unknown program language {language!r}; choose ein or python")
