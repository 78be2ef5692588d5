"""Algorithm 1 of the ClosureBench paper (``MatchAnswer``): the one answer comparator.

``match_answer(p, r, τ, a, mode)`` returns a :class:`~closurebench.schema.enums.Match`
(``CORRECT``, ``WRONG`` or ``FORMAT_ERROR``) exactly as Algorithm 1 (paper Appendix I),
where ``a`` is the instance's ambiguity class (the record's ``ambiguity`` field, which
the category's task wrote at generation time):

1. ``p`` is ``None`` or violates the JSON value type of ``τ`` → format error.
2. boolean: equal. integer: ``δ = |p − r|``; ``δ = 0`` correct; lenient and
   ``a = count`` (``c ∈ C_count_ambig``) and ``δ = 1`` correct. float: ``|p − r| ≤ ε =
   1e-2``. set: ``S_p = S_r`` correct; lenient and ``a = set`` (``c ∈ C_set_ambig``) and
   ``S_p △ S_r = {source}`` correct. string: ``Trim(p) = Trim(r)``. compound: recurse
   over ``keys(r)``, any failure → wrong.
3. Strict mode ignores the ambiguity class.

Strict mode is the one strict-correctness check of the project: evaluation
(:func:`closurebench.scoring.score_closure`) and the procedural-dataset reward
(:func:`closurebench.dataset.score_answer`) both call it.

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
    >>> match_answer(4, 3, "integer", Ambiguity.COUNT, "lenient")
    <Match.CORRECT: 'correct'>
    >>> match_answer(4, 3, "integer", Ambiguity.COUNT, "strict")
    <Match.WRONG: 'wrong'>
    >>> match_answer(4, 3, "integer", None, "lenient")  # no ambiguity class: strict
    <Match.WRONG: 'wrong'>
    >>> match_answer("4", 3, "integer", None, "strict")
    <Match.FORMAT_ERROR: 'format_error'>
    >>> match_answer(["a", "b", "X"], ["a", "b"], "set", Ambiguity.SET, "lenient",
    ...              sources={"X"})
    <Match.CORRECT: 'correct'>
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from typing import Any

from closurebench.errors import ConfigError
from closurebench.schema.enums import Ambiguity, Match, ResultType, ScoringMode

__all__ = [
    "FLOAT_TOLERANCE",
    "MODES",
    "infer_result_type",
    "match_answer",
    "type_ok",
]

#: Algorithm 1's ε for float answers.
FLOAT_TOLERANCE = 1e-2

#: The mode names :func:`match_answer` accepts.
MODES: tuple[str, ...] = tuple(m.value for m in ScoringMode)


def infer_result_type(reference: Any) -> ResultType:
    """The result type a reference value has (for compound members).

    Example:
        >>> [infer_result_type(v).value for v in (True, 3, 2.5, ["a"], "a", {"k": 1})]
        ['boolean', 'integer', 'float', 'set', 'string', 'compound']
    """
    if isinstance(reference, bool):
        return ResultType.BOOLEAN
    if isinstance(reference, int):
        return ResultType.INTEGER
    if isinstance(reference, float):
        return ResultType.FLOAT
    if isinstance(reference, list | tuple):
        return ResultType.SET
    if isinstance(reference, Mapping):
        return ResultType.COMPOUND
    return ResultType.STRING


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
    if result_type == ResultType.BOOLEAN:
        return isinstance(value, bool)
    if result_type == ResultType.INTEGER:
        got = _number(value)
        return got is not None and got.is_integer()
    if result_type == ResultType.FLOAT:
        return _number(value) is not None
    if result_type == ResultType.SET:
        return isinstance(value, list | tuple) and all(_label(v) for v in value)
    if result_type == ResultType.STRING:
        return _label(value)
    if result_type == ResultType.COMPOUND:
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
    ambiguity: Ambiguity | None,
    mode: ScoringMode | str = ScoringMode.STRICT,
    *,
    alt: Any = None,
    sources: Collection[str] = (),
) -> Match:
    """Algorithm 1, ``MatchAnswer(p, r, τ, a, m)`` (see the module docstring).

    Args:
        predicted: The extracted answer (labels).
        reference: The reference answer (labels).
        result_type: ``boolean | integer | float | set | string | compound``
            (a :class:`~closurebench.schema.enums.ResultType`; an unknown type matches
            nothing and gives a format error).
        ambiguity: The instance's ambiguity class (the record's ``ambiguity``), or
            ``None``; only lenient mode reads it.
        mode: ``"strict"`` or ``"lenient"``.
        alt: The record's ``alt_answer`` (other source convention), or ``None``.
        sources: Labels that count as "the source" for the set tolerance.

    Returns:
        :attr:`Match.CORRECT`, :attr:`Match.WRONG` or :attr:`Match.FORMAT_ERROR`.

    Raises:
        ConfigError: for a mode that is neither strict nor lenient.

    Example:
        >>> count = Ambiguity.COUNT
        >>> [match_answer(p, 4, "integer", count, "lenient", alt=6).value for p in (5, 6, 3)]
        ['correct', 'wrong', 'wrong']
        >>> match_answer(0.5, 0, "float", count, "lenient", alt=0.5).value
        'correct'
    """
    if mode not in MODES:
        raise ConfigError(f"mode must be one of {MODES}, not {mode!r}; pass 'strict' or 'lenient'")
    lenient = mode == ScoringMode.LENIENT
    if not type_ok(result_type, predicted, reference):
        return Match.FORMAT_ERROR
    if result_type == ResultType.BOOLEAN:
        return Match.CORRECT if predicted == bool(reference) else Match.WRONG
    if result_type == ResultType.INTEGER:
        p, r = float(predicted), float(reference)
        delta = abs(p - r)
        if delta == 0:
            return Match.CORRECT
        if lenient and ambiguity == Ambiguity.COUNT and delta == 1 and _toward(p, r, alt):
            return Match.CORRECT
        return Match.WRONG
    if result_type == ResultType.FLOAT:
        p = float(predicted)
        if abs(p - float(reference)) <= FLOAT_TOLERANCE + 1e-12:
            return Match.CORRECT
        a = _number(alt)
        if lenient and ambiguity == Ambiguity.COUNT and a is not None:
            return Match.CORRECT if abs(p - a) <= FLOAT_TOLERANCE + 1e-12 else Match.WRONG
        return Match.WRONG
    if result_type == ResultType.SET:
        sp = {str(v).strip() for v in predicted}
        sr = {str(v).strip() for v in reference}
        if sp == sr:
            return Match.CORRECT
        diff = sp ^ sr
        allowed = {str(s).strip() for s in sources}
        if lenient and ambiguity == Ambiguity.SET and len(diff) == 1 and diff <= allowed:
            return Match.CORRECT
        return Match.WRONG
    if result_type == ResultType.STRING:
        return Match.CORRECT if str(predicted).strip() == str(reference).strip() else Match.WRONG
    if result_type == ResultType.COMPOUND:
        for key, ref in reference.items():
            sub_alt = alt.get(key) if isinstance(alt, Mapping) else None
            got = match_answer(
                predicted[key],
                ref,
                infer_result_type(ref),
                ambiguity,
                mode,
                alt=sub_alt,
                sources=sources,
            )
            if got is not Match.CORRECT:
                return Match.WRONG
        return Match.CORRECT
    return Match.FORMAT_ERROR
