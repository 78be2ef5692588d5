"""Algorithm 1 of the ClosureBench paper (``MatchAnswer``): the one answer comparator.

``match_answer(p, r, τ, a, mode)`` returns a :class:`~closurebench.schema.enums.Match`
(``CORRECT``, ``WRONG`` or ``FORMAT_ERROR``) exactly as Algorithm 1 (paper Appendix I),
where ``a`` is the instance's ambiguity class (the record's ``ambiguity`` field, which
the category's task wrote at generation time):

1. ``p`` is ``None`` or violates the JSON value type of ``τ`` → format error.
2. boolean: equal. integer: ``δ = |p − r|``; ``δ = 0`` correct; lenient and
   ``a = count`` (``c ∈ C_count_ambig``) and ``δ = 1`` correct — in either direction.
   float: ``|p − r| ≤ ε = 1e-2`` (no lenient clause). set: ``S_p = S_r`` correct; lenient
   and ``a = set`` (``c ∈ C_set_ambig``) and ``S_p △ S_r = {source}`` correct, where the
   source is one anchor node of the question (``sources``: the labels of ``X``/``Y``).
   string: ``Trim(p) = Trim(r)``. compound: recurse over ``keys(r)``, any failure → wrong
   (line 27: a member's own format error, a missing member included, is a failure, so
   the compound answer is *wrong*, not a format error).
3. Strict mode ignores the ambiguity class.

``lenient`` is the paper's rule, literally (``docs/categories.md``), and
is what reports call *lenient*. Strict mode is the one strict-correctness check of the
project: evaluation (:func:`closurebench.scoring.score_closure`) and the
procedural-dataset reward (:func:`closurebench.dataset.score_answer`) both call it.

A third mode, :data:`LENIENT_DIRECTIONAL` (``"lenient_directional"``), is an extra
report column, never the default: it accepts only the step *towards* the record's
``alt_answer`` (the answer under the other source convention), i.e. the tolerance the
paper's text motivates (source inclusion) rather than the one its algorithm states:

* integer: ``±1`` only in the direction of ``alt`` (``alt`` itself only when it is one
  away: ``intersect_then_size``'s ``alt`` may be ``r + 2``, then ``r + 1`` is accepted and
  ``r + 2`` is not); no ``alt`` (e.g. ``conditional``'s ``-1`` branch) or ``alt = r`` → no
  tolerance;
* float (``aggregate_over_set``, a count category with a mean as answer): ``|p − alt| ≤ ε``
  when ``alt`` is given, else strict (Algorithm 1's float branch has no lenient clause, so
  here the variant accepts what ``lenient`` does not);
* set: one element of ``alt △ r`` may be added or dropped when ``alt`` is given (else one
  of ``sources``); ``set_intersect``'s ``alt`` adds both X and Y, adding both stays wrong.

Every mode keeps the paper's promise that the relaxation "never accepts a value that is
more than one element away from the strict reference".

Types (line 1), read literally as JSON value types: integer: a JSON number with an
integral value (``4.0`` is 4; ``4.5`` violates the type); float: any finite number;
booleans are never numbers; set: a JSON array of strings (duplicates collapse under
``Set``; an integer element violates the type: node labels are strings, and no label
pool has numeric labels); string: a JSON string (an integer given for a name violates
the type → format error); compound: a JSON object. A compound's members are checked by
the recursion of line 27, not by line 1: a missing member is ``p_k = None`` (line 1 of the
recursion) and a mistyped one violates its own type; either is a failure, so the answer
is *wrong*. Extra keys are ignored, as Algorithm 1 iterates over ``keys(r)`` only.

Set elements are compared as given (``Set(p)``, line 16): ``Trim`` is the string branch's
(line 23) and is not applied inside sets, so ``" a"`` is not the label ``"a"``.

Example:
    >>> [match_answer(p, 3, "integer", Ambiguity.COUNT, "lenient").value for p in (2, 4, 5)]
    ['correct', 'correct', 'wrong']
    >>> match_answer(4, 3, "integer", Ambiguity.COUNT, "strict")
    <Match.WRONG: 'wrong'>
    >>> match_answer(4, 3, "integer", None, "lenient")  # no ambiguity class: strict
    <Match.WRONG: 'wrong'>
    >>> match_answer("4", 3, "integer", None, "strict")
    <Match.FORMAT_ERROR: 'format_error'>
    >>> match_answer(["a", "b", "X"], ["a", "b"], "set", Ambiguity.SET, "lenient",
    ...              sources={"X"})
    <Match.CORRECT: 'correct'>
    >>> [match_answer(p, 3, "integer", Ambiguity.COUNT, LENIENT_DIRECTIONAL, alt=4).value
    ...  for p in (2, 4)]
    ['wrong', 'correct']
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping
from fractions import Fraction
from typing import Any, Final

from closurebench.errors import ConfigError
from closurebench.schema.enums import Ambiguity, Match, ResultType, ScoringMode

__all__ = [
    "FLOAT_TOLERANCE",
    "LENIENT_DIRECTIONAL",
    "MODES",
    "infer_result_type",
    "match_answer",
    "type_ok",
]

#: Algorithm 1's ε for float answers.
FLOAT_TOLERANCE = 1e-2

#: The directional variant of lenient scoring (an extra report column, not the paper's).
LENIENT_DIRECTIONAL: Final = "lenient_directional"

#: The mode names :func:`match_answer` accepts: Algorithm 1's two, then the variant.
MODES: tuple[str, ...] = (*(m.value for m in ScoringMode), LENIENT_DIRECTIONAL)

_EPS = FLOAT_TOLERANCE + 1e-12


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


def _is_number(value: Any) -> bool:
    """A finite JSON number: an int of any size, or a finite float (never a boolean).

    Example:
        >>> _is_number(10**400), _is_number(2.5), _is_number(float("nan")), _is_number(True)
        (True, True, False, False)
    """
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return True
    return isinstance(value, float) and math.isfinite(value)


def _exact(value: int | float) -> int | Fraction:
    """A finite number exactly, for integer arithmetic that no size can overflow."""
    return value if isinstance(value, int) else Fraction(value)


def _within(p: int | float, r: int | float, eps: float) -> bool:
    """``|p − r| <= eps``: in floats (as Algorithm 1 computes it) when both fit in one,
    exactly otherwise (an integer past the float range, e.g. 310 digits, is no error).

    Example:
        >>> _within(2.63, 2.62, _EPS), _within(10**400, 2.62, _EPS), _within(-(10**400), 0, 1)
        (True, False, False)
    """
    try:
        return abs(float(p) - float(r)) <= eps
    except OverflowError:  # float(int) of an integer beyond ~1.8e308
        gap: Fraction = abs(Fraction(_exact(p)) - Fraction(_exact(r)))
        return gap <= eps


def _label(value: Any) -> bool:
    """A JSON string (a node label; an integer or a boolean is not one)."""
    return isinstance(value, str)


def _labels(values: Any) -> set[str]:
    """``Set(p)`` of Algorithm 1 (line 16): the distinct labels, as given (no trimming)."""
    return {str(v) for v in values}


def type_ok(result_type: str, value: Any, reference: Any = None) -> bool:
    """Whether ``value`` has the JSON value type ``result_type`` asks for (line 1).

    ``reference`` is needed for ``compound`` only (it must be an object too). A
    compound's members are not checked here: line 27 recurses into them.

    Example:
        >>> type_ok("integer", 4.0), type_ok("integer", 4.5), type_ok("integer", True)
        (True, False, False)
        >>> type_ok("set", ["a", "b"]), type_ok("set", ["a", 2]), type_ok("set", "a, b")
        (True, False, False)
        >>> type_ok("string", "a"), type_ok("string", 7)
        (True, False)
        >>> type_ok("compound", {"degree": 1}, {"degree": 1, "reachable": True})
        True
    """
    if value is None:
        return False
    if result_type == ResultType.BOOLEAN:
        return isinstance(value, bool)
    if result_type == ResultType.INTEGER:
        return _is_number(value) and (isinstance(value, int) or value.is_integer())
    if result_type == ResultType.FLOAT:
        return _is_number(value)
    if result_type == ResultType.SET:
        return isinstance(value, list | tuple) and all(_label(v) for v in value)
    if result_type == ResultType.STRING:
        return _label(value)
    if result_type == ResultType.COMPOUND:
        return isinstance(value, Mapping) and isinstance(reference, Mapping)
    return False


def _toward(p: int | Fraction, r: int | Fraction, alt: Any) -> bool:
    """``p`` lies on the side of ``r`` where ``alt`` is (never when there is no ``alt``).

    Compared, not multiplied: exact for numbers of any size.

    Example:
        >>> _toward(4, 3, 5), _toward(2, 3, 5), _toward(4, 3, None), _toward(4, 3, 3)
        (True, False, False, False)
    """
    return _is_number(alt) and p != r and alt != r and (p > r) == (alt > r)


def _match_integer(
    p: int | Fraction, r: int | Fraction, tolerant: bool, directional: bool, alt: Any
) -> Match:
    delta = abs(p - r)
    if delta == 0:
        return Match.CORRECT
    if tolerant and delta == 1 and (not directional or _toward(p, r, alt)):
        return Match.CORRECT
    return Match.WRONG


def _match_float(
    p: int | float, r: int | float, tolerant: bool, directional: bool, alt: Any
) -> Match:
    if _within(p, r, _EPS):
        return Match.CORRECT
    if tolerant and directional and _is_number(alt) and _within(p, alt, _EPS):
        return Match.CORRECT
    return Match.WRONG


def _match_set(
    predicted: Any,
    reference: Any,
    tolerant: bool,
    directional: bool,
    alt: Any,
    sources: Collection[str],
) -> Match:
    sp, sr = _labels(predicted), _labels(reference)
    if sp == sr:
        return Match.CORRECT
    diff = sp ^ sr
    allowed = _labels(sources)
    if directional and isinstance(alt, list | tuple):
        allowed = _labels(alt) ^ sr
    if tolerant and len(diff) == 1 and diff <= allowed:
        return Match.CORRECT
    return Match.WRONG


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
            ``None``; only the lenient modes read it.
        mode: ``"strict"``, ``"lenient"`` (Algorithm 1) or ``"lenient_directional"``
            (:data:`LENIENT_DIRECTIONAL`, the stricter variant).
        alt: The record's ``alt_answer`` (other source convention), or ``None``; only
            ``"lenient_directional"`` reads it.
        sources: Labels that count as "the source" for the set tolerance (the anchor
            labels of the question).

    Returns:
        :attr:`Match.CORRECT`, :attr:`Match.WRONG` or :attr:`Match.FORMAT_ERROR`.

    Raises:
        ConfigError: for a mode that is not one of :data:`MODES`.

    Example:
        >>> count = Ambiguity.COUNT
        >>> [match_answer(p, 4, "integer", count, "lenient", alt=6).value for p in (5, 6, 3)]
        ['correct', 'wrong', 'correct']
        >>> [match_answer(p, 4, "integer", count, LENIENT_DIRECTIONAL, alt=6).value
        ...  for p in (5, 6, 3)]
        ['correct', 'wrong', 'wrong']
        >>> [match_answer(0.5, 0, "float", count, m, alt=0.5).value
        ...  for m in ("lenient", LENIENT_DIRECTIONAL)]
        ['wrong', 'correct']
    """
    if mode not in MODES:
        raise ConfigError(
            f"mode must be one of {MODES}, not {mode!r}; pass 'strict', 'lenient' or "
            f"'{LENIENT_DIRECTIONAL}'"
        )
    directional = mode == LENIENT_DIRECTIONAL
    lenient = mode == ScoringMode.LENIENT or directional
    if not type_ok(result_type, predicted, reference):
        return Match.FORMAT_ERROR
    if result_type == ResultType.BOOLEAN:
        return Match.CORRECT if predicted == bool(reference) else Match.WRONG
    if result_type == ResultType.INTEGER:  # exact: integers of any size, never a float
        count = lenient and ambiguity == Ambiguity.COUNT
        return _match_integer(_exact(predicted), _exact(reference), count, directional, alt)
    if result_type == ResultType.FLOAT:
        count = lenient and ambiguity == Ambiguity.COUNT
        return _match_float(predicted, reference, count, directional, alt)
    if result_type == ResultType.SET:
        tolerant = lenient and ambiguity == Ambiguity.SET
        return _match_set(predicted, reference, tolerant, directional, alt, sources)
    if result_type == ResultType.STRING:
        return Match.CORRECT if str(predicted).strip() == str(reference).strip() else Match.WRONG
    if result_type == ResultType.COMPOUND:  # line 27: any failure => WrongAnswer
        for key, ref in reference.items():
            sub_alt = alt.get(key) if isinstance(alt, Mapping) else None
            got = match_answer(
                predicted.get(key),  # a missing member is None: a format error, a failure
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
