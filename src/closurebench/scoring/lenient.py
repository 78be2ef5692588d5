"""Algorithm 1 of the ClosureBench paper (``MatchAnswer``), strict and lenient.

``match_answer(p, r, τ, c, mode)`` returns ``"correct"``, ``"wrong"`` or
``"format_error"`` exactly as Algorithm 1 (paper Appendix I):

1. ``p`` is ``None`` or violates the JSON value type of ``τ`` → format error.
2. boolean: equal. integer: ``δ = |p − r|``; ``δ = 0`` correct; lenient and
   ``c ∈ C_count_ambig`` and ``δ = 1`` correct. float: ``|p − r| ≤ ε = 1e-2``.
   set: ``S_p = S_r`` correct; lenient and ``c ∈ C_set_ambig`` and
   ``S_p △ S_r = {source}`` correct. string: ``Trim(p) = Trim(r)``. compound: recurse over
   ``keys(r)``, any failure → wrong.
3. Strict mode sets both ambiguity sets to ∅.

The ambiguity classes are the ones ``spec/closurebench.md`` fixes (the paper names only
three of the six count categories and points to supplementary code that is not public).

Where the paper is underspecified, this module decides (each choice keeps the paper's rule
that the lenient relaxation "never accepts a value that is more than one element away from
the strict reference"):

* **Which ±1.** Algorithm 1 accepts ``δ = 1`` in both directions, although the text says
  the tolerance is for the *source-inclusion* convention. When the record carries
  ``alt_answer`` (the answer under the other convention), only the ``±1`` step *towards*
  ``alt`` is accepted (``alt = r`` → no tolerance on that instance); ``alt`` itself is
  accepted only when it is one away (``intersect_then_size`` counts X and Y, so its ``alt``
  may be ``r + 2``: then ``r + 1`` — one of the two anchors counted — is accepted, ``r + 2``
  is not). Without ``alt``, Algorithm 1 applies literally (both directions).
* **What "source" is for sets.** ``sources`` are the candidate source labels: from the
  record, ``alt_answer △ answer`` when ``alt_answer`` exists, else the anchor labels
  (``X``, ``Y``). Exactly one of them may be added or dropped (``set_intersect``'s ``alt``
  adds both X and Y; adding both is two elements away and stays wrong).
* **Float count category.** ``aggregate_over_set`` is in ``C_count_ambig`` but
  Algorithm 1's float branch has no lenient clause and ``±1`` is meaningless on a mean.
  Lenient mode accepts ``|p − alt| ≤ ε`` when ``alt`` is given (the mean with the source
  included); without ``alt`` the float branch is strict, as in the paper.
* **Types (line 1).** integer: a JSON number with an integral value (``4.0`` is 4;
  ``4.5`` violates the type); float: any finite number; booleans are never numbers;
  set: a JSON array of strings/integers (integers allowed for numeric labels; duplicates
  collapse under ``Set``); string: a string or an integer (numeric labels); compound: an
  object holding every key of ``r`` with members of their own types (a missing key
  or a mistyped member is a schema violation → format error; extra keys are ignored, as
  Algorithm 1 iterates over ``keys(r)`` only).

Example:
    >>> match_answer(4, 3, "integer", "reach_then_count", "lenient")
    'correct'
    >>> match_answer(4, 3, "integer", "reach_then_count", "strict")
    'wrong'
    >>> match_answer("4", 3, "integer", "reach_then_count", "strict")
    'format_error'
    >>> match_answer(["a", "b", "X"], ["a", "b"], "set", "sibling", "lenient", sources={"X"})
    'correct'
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from closurebench.scoring.compare import FLOAT_TOLERANCE, infer_result_type

__all__ = [
    "COUNT_AMBIG",
    "MODES",
    "SET_AMBIG",
    "match_answer",
    "type_ok",
]

COUNT_AMBIG = frozenset(
    {
        "reach_then_count",
        "intersect_then_size",
        "aggregate_over_set",
        "conditional",
        "kinship_complex",
        "graph_comparison",
    }
)
SET_AMBIG = frozenset(
    {"set_intersect", "set_difference", "ancestor", "sibling", "cousin", "negative_reach"}
)
MODES = ("strict", "lenient")


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    f = float(value)
    return f if math.isfinite(f) else None


def _label(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)


def type_ok(result_type: str, value: Any, reference: Any = None) -> bool:
    """Whether ``value`` has the JSON value type ``result_type`` asks for (line 1).

    ``reference`` is needed for ``compound`` only (its keys and member types).

    Example:
        >>> type_ok("integer", 4.0), type_ok("integer", 4.5), type_ok("integer", True)
        (True, False, False)
        >>> type_ok("set", ["a", 2]), type_ok("set", {"a": 1}), type_ok("set", "a, b")
        (True, False, False)
        >>> type_ok("compound", {"degree": 1}, {"degree": 1, "reachable": True})
        False
    """
    if value is None:
        return False
    if result_type == "boolean":
        return isinstance(value, bool)
    if result_type == "integer":
        got = _number(value)
        return got is not None and got.is_integer()
    if result_type == "float":
        return _number(value) is not None
    if result_type == "set":
        return isinstance(value, list | tuple) and all(_label(v) for v in value)
    if result_type == "string":
        return _label(value)
    if result_type == "compound":
        if not isinstance(value, Mapping) or not isinstance(reference, Mapping):
            return False
        return all(
            k in value and type_ok(infer_result_type(r), value[k], r) for k, r in reference.items()
        )
    return False


def _toward(p: float, r: float, alt: Any) -> bool:
    """``p`` is one step from ``r`` in the direction of ``alt`` (any direction if none)."""
    a = _number(alt)
    if a is None:
        return True
    return a != r and (p - r) * (a - r) > 0


def match_answer(
    predicted: Any,
    reference: Any,
    result_type: str,
    category: str,
    mode: str = "strict",
    *,
    alt: Any = None,
    sources: Collection[str] = (),
) -> str:
    """Algorithm 1, ``MatchAnswer(p, r, τ, c, m)`` (see the module docstring).

    Args:
        predicted: The extracted answer (labels).
        reference: The reference answer (labels).
        result_type: ``boolean | integer | float | set | string | compound``.
        category: The instance's category (selects the ambiguity class).
        mode: ``"strict"`` or ``"lenient"``.
        alt: The record's ``alt_answer`` (other source convention), or ``None``.
        sources: Labels that count as "the source" for the set tolerance.

    Returns:
        ``"correct"``, ``"wrong"`` or ``"format_error"``.

    Example:
        >>> match_answer(5, 4, "integer", "intersect_then_size", "lenient", alt=6)
        'correct'
        >>> match_answer(6, 4, "integer", "intersect_then_size", "lenient", alt=6)
        'wrong'
        >>> match_answer(3, 4, "integer", "intersect_then_size", "lenient", alt=6)
        'wrong'
        >>> match_answer(0.5, 0, "float", "aggregate_over_set", "lenient", alt=0.5)
        'correct'
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}, not {mode!r}")
    lenient = mode == "lenient"
    if not type_ok(result_type, predicted, reference):
        return "format_error"
    if result_type == "boolean":
        return "correct" if predicted == bool(reference) else "wrong"
    if result_type == "integer":
        p, r = float(predicted), float(reference)
        delta = abs(p - r)
        if delta == 0:
            return "correct"
        if lenient and category in COUNT_AMBIG and delta == 1 and _toward(p, r, alt):
            return "correct"
        return "wrong"
    if result_type == "float":
        p = float(predicted)
        if abs(p - float(reference)) <= FLOAT_TOLERANCE + 1e-12:
            return "correct"
        a = _number(alt)
        if lenient and category in COUNT_AMBIG and a is not None:
            return "correct" if abs(p - a) <= FLOAT_TOLERANCE + 1e-12 else "wrong"
        return "wrong"
    if result_type == "set":
        sp = {str(v).strip() for v in predicted}
        sr = {str(v).strip() for v in reference}
        if sp == sr:
            return "correct"
        diff = sp ^ sr
        allowed = {str(s).strip() for s in sources}
        if lenient and category in SET_AMBIG and len(diff) == 1 and diff <= allowed:
            return "correct"
        return "wrong"
    if result_type == "string":
        return "correct" if str(predicted).strip() == str(reference).strip() else "wrong"
    if result_type == "compound":
        for key, ref in reference.items():
            sub_alt = alt.get(key) if isinstance(alt, Mapping) else None
            got = match_answer(
                predicted[key],
                ref,
                infer_result_type(ref),
                category,
                mode,
                alt=sub_alt,
                sources=sources,
            )
            if got != "correct":
                return "wrong"
        return "correct"
    return "format_error"
