"""Read a GRIT question back into its structure, and certify renderings by round trip.

The reader is written independently of :mod:`~closurebench.surface.grit.render`: it shares
only the data tables (the scenario and the sentence frames) and parses the text on its
own terms:

1. split the text into units (lines, then sentences ending in ``.``, ``?`` or ``!``);
2. find the node declaration ("... has 6 campsites: A, B, and C." / "numbered 0 to 5" /
   "with the IDs 104, 233, and 8392") and read the node list from it;
3. read alias statements ("Note: X is also referred to as 'Y'.");
4. match every other unit in full against the scenario's templates, where a name slot
   matches exactly one declared name or alias (numeric names as ``"<noun> <number>"``),
   a weight slot matches the scenario's unit ("4 ms", "$7", "1 minute") with plural
   agreement checked; an edge sentence yields an edge, the question yields the parameters,
   notes yield direction, BFS rule and the defined parameter (centrality kind);
5. refuse anything ambiguous or inconsistent: a unit that parses two ways (tried with the
   name alternatives longest-first and shortest-first), a duplicated edge, a unit that
   matches no template but mentions two or more nodes, disagreeing parameters, a missing
   question, a BFS rule that the printed list does not follow.

Node ids: with ``names`` (the view's display names, index = id) the result uses those
ids; without, canonical names keep their numbers and other views number nodes in the
order they are listed.

Example:
    >>> text = ("A data-centre network has 3 servers, numbered 0 to 2.\\n\\n"
    ...         "Each line below describes a direct network link between two servers. "
    ...         "Links can be used in both directions. The value after each link is its "
    ...         "latency.\\nserver 0 -- server 1: 4 ms\\nserver 1 -- server 2: 1 ms\\n\\n"
    ...         "What is the minimum total latency of a route from server 2 to server 0? "
    ...         "Give your answer as a single integer.")
    >>> s = read(text, "shortest_path", "sp_datacenter_latency")
    >>> s.edges, s.params, s.directed
    (((0, 1, 4), (1, 2, 1)), (('source', 2), ('target', 0)), False)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from closurebench.errors import ClosureBenchError, ConfigError, GraphError
from closurebench.structures.grit import NODE_PARAMS, GritStructure
from closurebench.surface.grit import scenarios as registry
from closurebench.surface.grit.grammar import (
    ReadError,
    Slots,
    grammar,
    readings,
    sentences,
    split_list,
)
from closurebench.surface.grit.scenarios.base import Scenario
from closurebench.tasks.grit import GraphTrait

__all__ = ["ReadError", "ReadView", "RoundTripError", "certify", "read", "read_view"]


class RoundTripError(ClosureBenchError):
    """Reading a rendered question did not recover exactly the rendered structure."""


@dataclass(frozen=True)
class ReadView:
    """Everything the reader recovers from one view."""

    structure: GritStructure
    names: tuple[str, ...]
    aliases: dict[str, int]
    listing: tuple[int, ...]
    tie_break: str | None
    ignored: tuple[str, ...] = field(default=(), compare=False)


def _declaration(units: list[str], sc: Scenario, patterns, slots: Slots):
    """Find the node declaration: (unit index, scheme kind, names in listed order)."""
    found = [(i, r) for i, unit in enumerate(units) for r in readings(unit, patterns, slots)]
    if len(found) != 1:
        raise ReadError(
            f"expected exactly one node declaration for scenario {sc.id!r}, found {len(found)}"
            + (f": {[units[i] for i, _ in found]}" if found else "")
        )
    i, (pat, gd) = found[0]
    kind = pat.info
    if kind == "numbered":
        last = int(gd["last"])
        n = int(gd["n"]) if "n" in gd else last + 1
        if last != n - 1:
            raise ReadError(f"declaration {units[i]!r}: {n} nodes cannot be numbered 0 to {last}")
        return i, kind, [str(k) for k in range(n)]
    names = split_list(gd["list"])
    if "n" in gd and int(gd["n"]) != len(names):
        raise ReadError(f"declaration {units[i]!r} announces {gd['n']} but lists {len(names)}")
    if kind == "ids" and not all(x.isdigit() for x in names):
        raise ReadError(f"declaration {units[i]!r} lists IDs that are not numbers")
    if len({x.casefold() for x in names}) != len(names):
        raise ReadError(f"declaration {units[i]!r} lists a name twice")
    return i, kind, names


def _aliases(units, skip: int, patterns, slots: Slots, names) -> tuple[dict[str, str], set[int]]:
    out: dict[str, str] = {}
    used: set[int] = set()
    taken = {x.casefold() for x in names}
    for i, unit in enumerate(units):
        if i == skip or "'" not in unit:
            continue
        for _, gd in readings(unit, patterns, slots):
            alias = gd["alias"]
            if alias.casefold() in taken:
                raise ReadError(f"alias {alias!r} in {unit!r} is already a name or alias")
            taken.add(alias.casefold())
            out[alias] = gd["a"]
            used.add(i)
    return out, used


def _weight_of(gd: dict[str, str], slots: Slots, unit: str) -> int | None:
    if "wt" in gd:
        m = slots.unit.fullmatch(gd["wt"])
        w = int(m.group("w"))  # type: ignore[union-attr]
        pl = m.groupdict().get("pl")  # type: ignore[union-attr]
        if pl is not None and pl != ("" if w == 1 else "s"):
            raise ReadError(f"{unit!r}: the unit's plural does not agree with the number {w}")
        return w
    return int(gd["w"]) if "w" in gd else None


def read_view(
    question: str,
    task: str,
    scenario: str | Scenario,
    names: list[str] | tuple[str, ...] | None = None,
) -> ReadView:
    """Read a question into its structure, names, aliases, listing and BFS rule.

    Args:
        question: The question text.
        task: The GRIT task the question is about.
        scenario: Its scenario (id or registered :class:`Scenario`).
        names: Optional display names (index = node id) to express the result in.

    Raises:
        ReadError: when the text cannot be read unambiguously (the message names the
            offending sentence).
    """
    sc = registry.get(scenario)
    if sc.task != task:
        raise ConfigError(f"scenario {sc.id!r} is for task {sc.task!r}, not {task!r}")
    vocab, decl_patterns, alias_patterns, patterns = grammar(sc)
    units = sentences(question)
    decl_i, kind, declared = _declaration(units, sc, decl_patterns, Slots(sc, vocab, None, []))
    numeric = kind in ("numbered", "ids")
    alias_names: dict[str, str] = {}
    alias_units: set[int] = set()
    if not numeric:
        first = Slots(sc, vocab, None, declared)
        alias_names, alias_units = _aliases(units, decl_i, alias_patterns, first, declared)
    index = {name: k for k, name in enumerate(declared)}
    lookup = dict(index) | {a: index[n] for a, n in alias_names.items()}
    slots = Slots(sc, vocab, sc.node if numeric else None, list(lookup))

    def node(value: str, unit: str) -> int:
        if value not in lookup:
            raise ReadError(f"{unit!r} refers to {value!r}, which is not a declared node")
        return lookup[value]

    edges: dict[tuple[int, int], int] = {}
    kinds: set[tuple[bool, bool]] = set()
    found: dict[str, list] = {
        "ask": [], "params": [], "direction": [], "rule": [], "definition": []
    }  # fmt: skip
    ignored: list[str] = []
    for i, unit in enumerate(units):
        if i == decl_i or i in alias_units:
            continue
        hits = readings(unit, patterns, slots)
        if not hits:
            seen = {node(x, unit) for x in slots.mentions(unit)}
            if len(seen) >= 2:
                raise ReadError(
                    f"{unit!r} mentions {len(seen)} nodes but is not a sentence of scenario "
                    f"{sc.id!r}; it may state a link the reader cannot see"
                )
            ignored.append(unit)
            continue
        pat, gd = hits[0]
        if pat.role == "edge":
            directed, weighted = cast(tuple[bool, bool], pat.info)
            u, v = node(gd["a"], unit), node(gd["b"], unit)
            w = _weight_of(gd, slots, unit)
            key = (u, v) if directed or u < v else (v, u)
            if u == v or key in edges:
                raise ReadError(f"{unit!r} is a self-loop or repeats an earlier edge")
            edges[key] = 1 if w is None else w
            kinds.add((directed, weighted))
        elif pat.role in ("ask", "opening"):
            if pat.role == "ask":
                found["ask"].append(pat.info)
            params: dict[str, object] = {k: node(gd[k], unit) for k in ("s", "t") if k in gd}
            for _, slot in sc.query.slots:  # the non-node query parameters
                if slot in gd:
                    params[slot] = gd[slot]
            if params:
                found["params"].append((pat.role, params))
        elif pat.role == "direction":
            found["direction"].append(pat.info)
        elif pat.role == "rule":
            found["rule"].append(gd["order"])
        elif pat.role == "definition":
            found["definition"].append(pat.info)
    return _assemble(sc, declared, kind, alias_names, edges, kinds, found, names, ignored)


def _one_param(found: dict[str, list]) -> dict[str, object]:
    merged: dict[str, object] = {}
    for role, params in found["params"]:
        for key, value in params.items():
            if key in merged and merged[key] != value:
                raise ReadError(f"the {role} gives {key}={value!r}, elsewhere {merged[key]!r}")
            merged[key] = value
    return merged


def _check_rule(sc: Scenario, found: dict[str, list], kind: str, declared: list[str]) -> str | None:
    rules = found["rule"]
    if not sc.task_class.states_neighbour_order:
        if rules:
            raise ReadError(f"a {sc.task} question should not state a BFS neighbour order")
        return None
    if len(rules) != 1:
        raise ReadError(f"a BFS question must state its neighbour order once, found {len(rules)}")
    rule = rules[0]
    numeric = kind in ("numbered", "ids")
    if rule == "numeric" and not (numeric and declared == sorted(declared, key=int)):
        raise ReadError("the BFS rule is numeric order but the nodes are not listed by number")
    if rule == "alphabetical" and (
        numeric or declared != sorted(declared, key=lambda x: (x.casefold(), x))
    ):
        raise ReadError("the BFS rule is alphabetical but the list is not in alphabetical order")
    if rule == "listed" and numeric:
        raise ReadError("numbered nodes must use numeric order, not the listed order")
    return rule


def _assemble(sc, declared, kind, alias_names, edges, kinds, found, names, ignored) -> ReadView:
    task, spec = sc.task, sc.task_class
    if len(kinds) > 1:
        raise ReadError(f"edges mix kinds (directed, weighted) = {sorted(kinds)}")
    always_weighted = spec.weighted is GraphTrait.ALWAYS
    directed, weighted = next(iter(kinds)) if kinds else (False, always_weighted)
    if not found["ask"]:
        raise ReadError(f"no question of scenario {sc.id!r} was found in the text")
    if spec.weighted is GraphTrait.EITHER and set(found["ask"]) != {weighted}:
        raise ReadError("the question's wording (weighted or hop count) does not fit the edges")
    if spec.states_direction:
        if found["direction"] != [directed]:
            raise ReadError(
                f"expected one note saying links are {'one-way' if directed else 'two-way'}, "
                f"found {found['direction']}"
            )
    elif found["direction"]:
        raise ReadError(f"a {task} question should not carry a direction note")
    merged = _one_param(found)
    params: dict[str, object] = {}
    if "s" in merged:
        params["source"] = merged["s"]
    if "t" in merged:
        params["target"] = merged["t"]
    if spec.defined_param is not None:
        slot = sc.query.slot(spec.defined_param)
        if found["definition"] != [merged.get(slot)]:
            raise ReadError(
                f"the question asks for {merged.get(slot)!r} {spec.defined_param} but the "
                f"definition given is {found['definition']}"
            )
        params[spec.defined_param] = merged[slot]
    tie_break = _check_rule(sc, found, kind, declared)

    n = len(declared)
    if names is not None:
        given = [str(x) for x in names]
        if sorted(given) != sorted(declared):
            missing = sorted(set(given) - set(declared))[:3]
            extra = sorted(set(declared) - set(given))[:3]
            raise ReadError(
                f"declared names differ from the view's: missing {missing}, extra {extra}"
            )
        at = {name: i for i, name in enumerate(given)}
        perm = [at[name] for name in declared]
        out_names = tuple(given)
    else:
        perm = [int(x) for x in declared] if kind == "numbered" else list(range(n))
        out_names = tuple(declared[perm.index(i)] for i in range(n))
    id_edges = [(perm[u], perm[v], w) for (u, v), w in edges.items()]
    for key in NODE_PARAMS:
        if key in params:
            params[key] = perm[cast(int, params[key])]
    try:
        structure = spec.structure(n, directed, weighted, id_edges, params)
    except (ConfigError, GraphError) as exc:
        raise ReadError(f"the text does not describe a valid {task} instance: {exc}") from None
    index = {name: k for k, name in enumerate(declared)}
    aliases = {a: perm[index[name]] for a, name in alias_names.items()}
    return ReadView(structure, out_names, aliases, tuple(perm), tie_break, tuple(ignored))


def read(
    question: str,
    task: str,
    scenario: str | Scenario,
    names: list[str] | tuple[str, ...] | None = None,
) -> GritStructure:
    """Recover the structure (graph and query, aliases resolved) from question text.

    See :func:`read_view` for the arguments; this returns only the structure.
    """
    return read_view(question, task, scenario, names).structure


def _first_edge_difference(want: GritStructure, got: GritStructure) -> str:
    a = {(u, v): w for u, v, w in want.edges}
    b = {(u, v): w for u, v, w in got.edges}
    for key in sorted(set(a) | set(b)):
        if key not in b:
            return f"edge {key} (weight {a[key]}) is missing"
        if key not in a:
            return f"edge {key} (weight {b[key]}) is extra"
        if a[key] != b[key]:
            return f"edge {key} has weight {b[key]}, expected {a[key]}"
    return "edges differ"  # pragma: no cover


def certify(structure: GritStructure, rendered) -> None:
    """Check that reading ``rendered.question`` gives back ``structure`` and the view's names.

    Args:
        structure: What was rendered.
        rendered: A :class:`~closurebench.surface.grit.render.RenderedQuestion`.

    Raises:
        RoundTripError: naming the view and the first difference (or the read failure).
    """
    where = f"{rendered.scenario} {rendered.form}/{rendered.naming}"
    try:
        got = read_view(rendered.question, structure.task, rendered.scenario, rendered.names)
    except ReadError as exc:
        raise RoundTripError(f"{where}: the reader failed: {exc}") from exc
    s = got.structure
    checks = [
        ("n", structure.n, s.n),
        ("directed", structure.directed, s.directed),
        ("weighted", structure.weighted, s.weighted),
        ("params", structure.params, s.params),
    ]
    for what, want, have in checks:
        if want != have:
            raise RoundTripError(f"{where}: {what} read as {have!r}, expected {want!r}")
    if structure.edges != s.edges:
        raise RoundTripError(f"{where}: {_first_edge_difference(structure, s)}")
    view = [
        ("aliases", dict(rendered.aliases), got.aliases),
        ("listing", tuple(rendered.listing), got.listing),
        ("BFS tie-break", rendered.tie_break, got.tie_break),
    ]
    for what, want, have in view:
        if want != have:
            raise RoundTripError(f"{where}: {what} read as {have!r}, expected {want!r}")
