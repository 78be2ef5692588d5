"""Program-synthesis modes: the model writes a program, the sandbox runs it (paper §4.5).

* ``program-ein`` (ClosureBench): an Ein program, a syntax card appended to the system
  prompt: ours by default (:func:`~closurebench.ein.syntax_card`, every builtin), or the
  paper's own App. F card (``--ein-card paper``, :data:`~closurebench.ein.PAPER_CARD`;
  :meth:`EinProgramMode.use_ein_card`, recorded in ``run.json`` as ``ein_card``). Ein
  computes over node indices in the order in which the question lists the entities; its
  printed vectors and indices are mapped back to labels.
* ``program-python`` (both suites): a Python + NetworkX program that prints the answer.

Per instance: one request; the program is the reply's last fenced block (else the whole
reply); it runs in :mod:`closurebench.sandbox` (never in this process); its last printed
line becomes the answer, converted to the instance's result type and scored like any
answer (Algorithm 1; the GRIT checkers). A program that does not run to its end (a
syntax error, an exception, a timeout, a forbidden call) gave no answer: its outcome is
``no_answer``, as the paper's Table 11 counts it under "No ans." (Ein 0.4 %, Python
2.3 %, the programs that did not execute), and its record keeps ``exec_error`` (true)
and the error class ``execution``. :attr:`ProgramMode.failed_run_outcome` is that
outcome; set it to ``Outcome.WRONG`` to count failed runs as wrong answers instead (what
this mode did before). A program that runs but prints nothing is ``no_answer`` too. An
answer that is not correct gets the paper's §4.5 error class: ``graph_reading`` (the
program's graph differs from the question's), ``logic`` (graph right, answer wrong) or
``execution`` (no program, or it did not run to its end).

Example:
    >>> mode = PythonProgramMode()
    >>> mode.name, sorted(str(s) for s in mode.system_prompts)
    ('program-python', ['closure', 'grit'])
    >>> "BUILTINS:" in EinProgramMode.system_prompts["closure"]
    True
    >>> paper = EinProgramMode()
    >>> paper.use_ein_card("paper")
    'paper'
    >>> from closurebench.ein import PAPER_CARD
    >>> rec = type("R", (), {"suite": "closure"})()
    >>> paper.system(rec).endswith(PAPER_CARD), "BUILTINS:" in paper.system(rec)
    (True, False)
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from typing import Any, ClassVar

from closurebench.ein import ein_card
from closurebench.evaluate.modes.base import AnyInstance, CompleteFn, Mode, ModeOutput
from closurebench.evaluate.program import (
    MAX_PROGRAM_CHARS,
    ein_answer,
    ein_graph_read,
    extract_program,
    last_printed_line,
    parse_printed,
    python_answer,
    python_graph_read,
)
from closurebench.schema import ClosureInstance, ExtractStatus, GritInstance, Outcome, Suite
from closurebench.scoring import parse_block, score_closure_value, score_grit_value
from closurebench.scoring.outcome import Score

__all__ = [
    "CLOSURE_EIN_PROGRAM",
    "CLOSURE_PYTHON_PROGRAM",
    "GRIT_PYTHON_PROGRAM",
    "EinProgramMode",
    "ErrorClass",
    "ProgramMode",
    "PythonProgramMode",
    "closure_ein_prompt",
]

#: How the Ein prompt fixes node indices and answer encodings (paper: not stated; ours).
NODE_ORDER = (
    "Number the entities 0, 1, 2, ... in the order in which the question first lists "
    "them; node i of the adjacency matrix is the i-th entity listed. Print the answer as "
    "the last value: a set of entities as a 0/1 vector over all entities, one entity as "
    "its index, a yes/no answer as 1 or 0, a count or a number as a scalar. When the "
    "question asks several things, print one value for each, named as the question's "
    "parts (for example :print Reachable then :print Degree)."
)

#: What the ClosureBench Ein prompt says before the syntax card (ours; the paper gives
#: only the card).
_EIN_PREAMBLE = (
    "You are a reasoning assistant. Read the graph description carefully and write an Ein "
    "program that computes the answer to the question. Do not compute the answer yourself: "
    "the program is run and its printed value is your answer. Reply with the program in "
    "one ```ein code block. "
)


def closure_ein_prompt(card: str = "ours") -> str:
    """The ClosureBench Ein code-generation system prompt carrying the Ein card ``card``.

    The same instructions and node order for every card; the card (``ours`` or
    ``paper``, :data:`~closurebench.ein.EIN_CARDS`) is appended, as the paper appends its
    syntax reference (App. F).

    Raises:
        ConfigError: for an unknown card, naming it and the choices.
    """
    return _EIN_PREAMBLE + NODE_ORDER + "\n\n" + ein_card(card)


#: ClosureBench Ein code-generation system prompt with our syntax card (the default).
CLOSURE_EIN_PROGRAM = closure_ein_prompt("ours")

_PYTHON = (
    "You are a reasoning assistant. Read the graph description carefully and write a "
    "Python program using NetworkX that computes the answer to the question. Do not "
    "compute the answer yourself: the program is run and the last line it prints is your "
    "answer. Build the graph from the description, use the entity names exactly as the "
    "question writes them, and print only the answer on the last line"
)

#: ClosureBench Python + NetworkX code-generation system prompt.
CLOSURE_PYTHON_PROGRAM = (
    _PYTHON + ", as JSON (json.dumps): a number, true/false, a name, a list of names, or "
    "an object with one field per part of the question when it asks several things. "
    "Reply with the program in one ```python code block."
)

#: GRIT Python + NetworkX code-generation system prompt.
GRIT_PYTHON_PROGRAM = (
    _PYTHON + " in the form the question asks for (a number, a list of names in order, or "
    "a mapping of names to values as JSON). Reply with the program in one ```python code "
    "block."
)

#: The paper's §4.5 classes of a wrong program answer.
ErrorClass = str
GRAPH_READING: ErrorClass = "graph_reading"
LOGIC: ErrorClass = "logic"
EXECUTION: ErrorClass = "execution"

#: Characters of the program and of its stdout kept in the result record.
PROGRAM_KEEP = 20_000
STDOUT_KEEP = 2_000

_POOL_LOCK = threading.Lock()
_POOL: ThreadPoolExecutor | None = None


def _pool() -> ThreadPoolExecutor:
    """One thread per core runs sandboxed programs (each waits on its child process)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(
                max_workers=max(1, os.cpu_count() or 1), thread_name_prefix="closurebench-prog"
            )
        return _POOL


class ProgramMode(Mode, ABC):
    """Base of the program modes: ask for a program, run it sandboxed, score its output.

    Subclasses set :attr:`language`, :attr:`fences` and :meth:`execute`.
    """

    takes_fewshot: ClassVar[bool] = False

    name: ClassVar[str] = "program"
    language: ClassVar[str] = ""
    fences: ClassVar[tuple[str, ...]] = ()
    #: The sandbox level programs run at: ``None`` (the strongest wall that works),
    #: ``"bwrap"``, or ``"none"`` (no wall: ``--unsafe-no-sandbox``). See
    #: :meth:`use_sandbox`.
    isolation: str | None = None
    #: The outcome of a program that does not run to its end: ``no_answer`` (the
    #: paper's Table 11, "No ans."); ``Outcome.WRONG`` counts it as a wrong answer
    #: (``--failed-program-as wrong``). See :meth:`count_failed_runs_as`.
    failed_run_outcome: Outcome = Outcome.NO_ANSWER

    def count_failed_runs_as(self, outcome: str) -> Outcome:
        """Set how a program that does not run is scored: ``no_answer`` or ``wrong``.

        Raises:
            ConfigError: Any other value.

        Example:
            >>> PythonProgramMode().count_failed_runs_as("wrong").value
            'wrong'
        """
        from closurebench.errors import ConfigError

        allowed = {"no_answer": Outcome.NO_ANSWER, "wrong": Outcome.WRONG}
        if outcome not in allowed:
            raise ConfigError(
                f"--failed-program-as is {outcome!r}; pass no_answer (the paper's Table 11) "
                "or wrong"
            )
        self.failed_run_outcome = allowed[outcome]
        return self.failed_run_outcome

    def use_sandbox(self, level: str | None = None, *, unsafe: bool = False) -> str:
        """Choose the sandbox and check now that it works (before any request is sent).

        Args:
            level: A wall's name (``--sandbox bwrap``), or ``None`` for the strongest
                one that works here.
            unsafe: Run programs without a wall (``--unsafe-no-sandbox``).

        Returns:
            The level programs will run at.

        Raises:
            ConfigError: ``level`` and ``unsafe`` both given, or an unknown level.
            SandboxUnavailableError: No wall works here (the message says how to
                install bubblewrap) and ``unsafe`` was not asked for.
        """
        from closurebench.errors import ConfigError
        from closurebench.sandbox import require_wall

        if unsafe and level is not None:
            raise ConfigError(
                f"--sandbox {level} and --unsafe-no-sandbox contradict each other; pass one"
            )
        chosen = require_wall("none" if unsafe else level)
        self.isolation = str(chosen)
        return self.isolation

    def identity_options(self) -> dict[str, Any]:
        """How a program that fails is counted (``--failed-program-as``)."""
        return {"failed_program_as": str(self.failed_run_outcome)}

    def run_info(self) -> dict[str, Any]:
        """The sandbox's level and layers, recorded in ``run.json`` and the summary.

        Raises:
            SandboxUnavailableError: No wall works here (no run without one).
        """
        from closurebench.sandbox import describe_isolation
        from closurebench.sandbox.warm import warm_enabled

        return {
            "sandbox": {**describe_isolation(self.isolation), "warm": warm_enabled()},
            "failed_program_as": str(self.failed_run_outcome),
        }

    @abstractmethod
    def execute(self, record: AnyInstance, program: str) -> _Executed:
        """Run ``program`` in the sandbox and read its answer (in a worker thread)."""

    async def run(self, record: AnyInstance, complete: CompleteFn) -> ModeOutput:
        """Request a program, run it in the sandbox, score what it printed.

        Args:
            record: A typed instance record.
            complete: The runner's request function.

        Returns:
            The output; ``extra`` holds the program, its execution outcome and detail,
            the head of its stdout, its wall time, ``exec_error``, ``graph_read`` and the
            ``error_class`` of a wrong answer.
        """
        self.system(record)  # a suite this mode has no prompt for fails before the request
        completion = await complete(self.messages(record))
        text = completion.text or ""
        program = extract_program(text, self.fences)
        if program.strip():
            loop = asyncio.get_running_loop()
            done = await loop.run_in_executor(_pool(), self.execute, record, program)
        else:
            done = _Executed(
                Score.fail(Outcome.NO_ANSWER, None, "the reply holds no program"),
                outcome="no_program",
            )
        return ModeOutput(
            score=done.score,
            response=text,
            reasoning=completion.reasoning,
            prompt_tokens=completion.prompt_tokens or 0,
            completion_tokens=completion.completion_tokens or 0,
            reasoning_tokens=completion.reasoning_tokens,
            latency_s=completion.latency_s,
            finish_reason=completion.finish_reason,
            extra=done.extra(self.language, program),
        )


class _Executed:
    """What running one program gave: its score and the details for the record."""

    def __init__(
        self,
        score: Score,
        *,
        outcome: str,
        detail: str = "",
        stdout: str = "",
        seconds: float = 0.0,
        graph_read: bool | None = None,
        isolation: str = "",
    ) -> None:
        self.score = score
        self.outcome = outcome
        self.detail = detail
        self.stdout = stdout
        self.seconds = seconds
        self.graph_read = graph_read
        self.isolation = isolation

    @property
    def exec_error(self) -> bool:
        """The program did not run to its end (or there was none)."""
        return self.outcome != "ok"

    def error_class(self) -> ErrorClass | None:
        """The §4.5 class of a wrong answer (``None`` when leniently correct)."""
        if self.score.lenient:
            return None
        if self.exec_error:
            return EXECUTION
        return LOGIC if self.graph_read else GRAPH_READING

    def extra(self, language: str, program: str) -> dict[str, Any]:
        return {
            "language": language,
            "program": program[:PROGRAM_KEEP],
            "program_chars": len(program),
            "exec_outcome": self.outcome,
            "exec_detail": self.detail[:STDOUT_KEEP],
            "exec_error": self.exec_error,
            "exec_seconds": round(self.seconds, 4),
            "stdout_head": self.stdout[:STDOUT_KEEP],
            "graph_read": self.graph_read,
            "error_class": self.error_class(),
            "isolation": self.isolation,
        }


def _unwrap(value: Any) -> Any:
    """``{"answer": v}`` → ``v`` (a program that prints the direct-mode answer object)."""
    if isinstance(value, dict) and set(value) == {"answer"}:
        return value["answer"]
    return value


def _score_value(record: AnyInstance, value: Any) -> Score:
    if isinstance(record, GritInstance):
        return score_grit_value(record, value)
    return score_closure_value(record, value)


class EinProgramMode(ProgramMode):
    """``program-ein``: the model writes Ein (ClosureBench only).

    Attributes:
        ein_card: The syntax card the system prompt carries: ``"ours"`` (default) or
            ``"paper"`` (``--ein-card``; see :meth:`use_ein_card`).
    """

    name: ClassVar[str] = "program-ein"
    language: ClassVar[str] = "ein"
    fences: ClassVar[tuple[str, ...]] = ("ein",)
    system_prompts: ClassVar[Mapping[Suite, str]] = {Suite.CLOSURE: CLOSURE_EIN_PROGRAM}
    ein_card: str = "ours"

    def use_ein_card(self, card: str) -> str:
        """Choose the Ein card of the system prompt: ``ours`` or ``paper`` (``--ein-card``).

        Raises:
            ConfigError: for any other name (naming it and the choices).

        Example:
            >>> EinProgramMode().use_ein_card("appendix")
            Traceback (most recent call last):
            ...
            closurebench.errors.ConfigError: --ein-card 'appendix' is unknown; choose one of \
ours, paper
        """
        ein_card(card)  # validates
        self.ein_card = card
        return card

    def system(self, record: AnyInstance) -> str:
        """The system prompt for ``record``: ClosureBench's carries the chosen Ein card."""
        if Suite(record.suite) is Suite.CLOSURE:
            return closure_ein_prompt(self.ein_card)
        return super().system(record)

    def identity_options(self) -> dict[str, Any]:
        """Also the Ein card of the system prompt (``--ein-card``)."""
        return {**super().identity_options(), "ein_card": self.ein_card}

    def run_info(self) -> dict[str, Any]:
        """The program modes' facts, and the Ein card the prompt carries (``ein_card``)."""
        return {**super().run_info(), "ein_card": self.ein_card}

    def execute(self, record: AnyInstance, program: str) -> _Executed:
        """Run the Ein program in a sandbox worker; map its output to labels."""
        from closurebench.sandbox import run_ein

        assert isinstance(record, ClosureInstance)
        res = run_ein(program, isolation=self.isolation)
        read = ein_graph_read(record, program)
        common: dict[str, Any] = {
            "seconds": res.wall_seconds,
            "graph_read": read,
            "isolation": res.isolation,
            "stdout": "\n".join(f"{label} = {value}" for label, value in res.printed),
        }
        if not res.ok:
            why = f"{res.error}: {res.message}".strip(": ")
            return _Executed(
                Score.fail(
                    self.failed_run_outcome, None, f"the program failed ({res.outcome}): {why}"
                ),
                outcome=str(res.outcome),
                detail=why,
                **common,
            )
        if res.value is None and not res.printed:
            return _Executed(
                Score.fail(Outcome.NO_ANSWER, None, "the program printed nothing"),
                outcome="ok",
                detail="no output",
                **common,
            )
        answer, reason = ein_answer(record, res.value, res.printed)
        score = (
            Score.fail(Outcome.FORMAT_ERROR, answer, reason)
            if reason
            else _score_value(record, answer)
        )
        return _Executed(score, outcome="ok", **common)


class PythonProgramMode(ProgramMode):
    """``program-python``: the model writes Python + NetworkX (both suites)."""

    name: ClassVar[str] = "program-python"
    language: ClassVar[str] = "python"
    fences: ClassVar[tuple[str, ...]] = ("python", "py", "python3")
    system_prompts: ClassVar[Mapping[Suite, str]] = {
        Suite.CLOSURE: CLOSURE_PYTHON_PROGRAM,
        Suite.GRIT: GRIT_PYTHON_PROGRAM,
    }

    def execute(self, record: AnyInstance, program: str) -> _Executed:
        """Run the Python program in a fresh sandboxed interpreter; read its last line."""
        from closurebench.sandbox import run_python

        started = time.monotonic()
        res = run_python(program[:MAX_PROGRAM_CHARS], capture_graphs=True, isolation=self.isolation)
        read = python_graph_read(record, res.graphs)
        common: dict[str, Any] = {
            "seconds": res.wall_seconds or time.monotonic() - started,
            "graph_read": read,
            "isolation": res.isolation,
            "stdout": res.stdout,
        }
        if not res.ok:
            tail = res.stderr.strip().splitlines()[-1:] if res.stderr.strip() else []
            why = "; ".join([res.detail, *tail]).strip("; ")
            return _Executed(
                Score.fail(
                    self.failed_run_outcome, None, f"the program failed ({res.outcome}): {why}"
                ),
                outcome=str(res.outcome),
                detail=why,
                **common,
            )
        line = last_printed_line(res.stdout)
        if line is None:
            return _Executed(
                Score.fail(Outcome.NO_ANSWER, None, "the program printed nothing"),
                outcome="ok",
                detail="no output",
                **common,
            )
        _, value = parse_printed(line)
        value = _unwrap(value)
        if isinstance(record, GritInstance):
            if isinstance(value, str):  # names separated by commas or arrows, a bare name
                got = parse_block(line)
                value = got.value if got.status is ExtractStatus.OK else value
            score = score_grit_value(record, value)
        else:
            score = score_closure_value(record, python_answer(record, value))
        return _Executed(score, outcome="ok", **common)
