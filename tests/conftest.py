"""Session guards: the test suite writes only under pytest's own temporary folders.

Two checks, run around every session (``uv run pytest``, or any subset):

1. **The working tree.** Every file under the repository root (except ``.git``,
   ``.venv`` and tool caches: ``__pycache__``, ``.pytest_cache``, ``.mypy_cache``,
   ``.ruff_cache``, ``.hypothesis``) is listed with its size and modification time
   before the first test and after the last; any file added, removed or changed fails
   the session and is named. This catches a test that writes where the user stands,
   e.g. one that runs ``closurebench quickstart`` with the default ``--out`` and
   overwrites the user's ``./closurebench-quickstart/`` (ignored by git, so a check of
   ``git status`` alone would miss it). Editing files while the suite runs trips it
   too: set ``CLOSUREBENCH_TREE_CHECK=0`` to skip this check then.

2. **The system temporary directory.** For the session, ``TMPDIR`` (inherited by
   subprocesses) and :data:`tempfile.tempdir` point into a folder inside pytest's own
   base temporary directory (``<basetemp>/tempfile``; pytest keeps the last three base
   directories under ``pytest-of-<user>`` and deletes older ones). So nothing a test
   or a subprocess creates with :mod:`tempfile` lands in the system temporary
   directory, which this approach keeps exactly as it was without comparing listings
   of a folder other programs write to concurrently. Whatever is left in that folder
   at the end of the session was created without being cleaned up (a
   ``tempfile.mkdtemp()`` never removed, a ``TemporaryDirectory`` never closed); the
   session fails and names it. Tests write under ``tmp_path`` instead.

The developer scripts (``scripts/``, not part of the package) are importable by name
from every test (``from screenshot import screenshot``, ``from docs import render_docs``):
their folder goes on the import path here, before any test module is imported.

One speed-up, no check: **bytecode is kept, as Python keeps it by default.** Many tests
start fresh interpreters (``python -m closurebench ...``, worker processes), and each
compiles every module it imports when no ``.pyc`` is at hand: seconds per process, and
torch, transformers or inspect_ai take seconds to compile even once. Where
``PYTHONDONTWRITEBYTECODE=1`` is set (some container images set it), the suite turns
bytecode writing back on for its run, in this process and in its subprocesses, from
before the first test module is imported: each module is compiled once, into the
``__pycache__`` folder beside it (ignored by git and by the tree check), and read from
there by every later process and every later run. Bytecode compiled at install time
(``UV_COMPILE_BYTECODE=1``, as CI does) is read as it is. A ``PYTHONPYCACHEPREFIX`` of
your own is left alone. Set ``CLOSUREBENCH_TEST_PYCACHE=0`` to leave the interpreter's
bytecode settings exactly as they are.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from closurebench.schema import ClosureInstance

_ROOT = Path(__file__).resolve().parents[1]
if str(_ROOT / "scripts") not in sys.path:
    sys.path.insert(0, str(_ROOT / "scripts"))
_SKIP_DIRS = frozenset(
    {".git", ".venv", "__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache", ".hypothesis"}
)
_TREE_KEY = pytest.StashKey[dict[str, tuple[int, int]]]()
_LEAK_KEY = pytest.StashKey[list[str]]()
_PROBLEMS_KEY = pytest.StashKey[list[str]]()


def _tree(root: Path) -> dict[str, tuple[int, int]]:
    """``relative path -> (size, mtime_ns)`` of every file under ``root`` (caches skipped)."""
    files: dict[str, tuple[int, int]] = {}
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIP_DIRS)
        for name in names:
            path = Path(folder) / name
            try:
                st = path.lstat()
            except OSError:  # removed while listing
                continue
            files[path.relative_to(root).as_posix()] = (st.st_size, st.st_mtime_ns)
    return files


def _tree_check_on() -> bool:
    return os.environ.get("CLOSUREBENCH_TREE_CHECK", "1").strip() not in ("0", "false", "no")


def pytest_sessionstart(session: pytest.Session) -> None:
    if _tree_check_on():
        session.config.stash[_TREE_KEY] = _tree(_ROOT)


_BYTECODE_KEY = pytest.StashKey[tuple[str | None, bool]]()


def pytest_configure(config: pytest.Config) -> None:
    """Keep bytecode for this run and its subprocesses (see the module docstring)."""
    if os.environ.get("CLOSUREBENCH_TEST_PYCACHE", "1").strip() in ("0", "false", "no"):
        return
    config.stash[_BYTECODE_KEY] = os.environ.get("PYTHONDONTWRITEBYTECODE"), sys.dont_write_bytecode
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False


def pytest_unconfigure(config: pytest.Config) -> None:
    saved = config.stash.get(_BYTECODE_KEY, None)
    if saved is None:
        return
    env, sys.dont_write_bytecode = saved
    if env is not None:
        os.environ["PYTHONDONTWRITEBYTECODE"] = env


@pytest.fixture(scope="session", autouse=True)
def _contained_tempdir(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Path]:
    """Point ``TMPDIR`` and :data:`tempfile.tempdir` into pytest's base temp for the session."""
    contained = tmp_path_factory.mktemp("tempfile", numbered=False)
    old_env, old_tempdir = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"] = str(contained)
    tempfile.tempdir = str(contained)
    try:
        yield contained
    finally:
        tempfile.tempdir = old_tempdir
        if old_env is None:
            os.environ.pop("TMPDIR", None)
        else:
            os.environ["TMPDIR"] = old_env
        request.config.stash[_LEAK_KEY] = sorted(p.name for p in contained.iterdir())


@pytest.fixture(scope="session", autouse=True)
def _torch_caches_under_tmp(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep torch's compile cache (``$TMPDIR/torchinductor_<user>`` by default) in pytest's
    temporary folders: importing trl or peft (the train tests, the import walk of
    ``test_no_global_random``) creates it."""
    saved = os.environ.get("TORCHINDUCTOR_CACHE_DIR")
    os.environ["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("torchinductor"))
    yield
    if saved is None:
        os.environ.pop("TORCHINDUCTOR_CACHE_DIR", None)
    else:
        os.environ["TORCHINDUCTOR_CACHE_DIR"] = saved


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    problems: list[str] = []
    before = session.config.stash.get(_TREE_KEY, None)
    if before is not None:
        after = _tree(_ROOT)
        changed = sorted(
            path for path in before.keys() | after.keys() if before.get(path) != after.get(path)
        )
        if changed:
            shown = ", ".join(changed[:20]) + (
                f" and {len(changed) - 20} more" if len(changed) > 20 else ""
            )
            problems.append(
                f"the test run changed the working tree under {_ROOT}: {shown}. Tests must write "
                "only under tmp_path (set CLOSUREBENCH_TREE_CHECK=0 if you edited files "
                "during the run)"
            )
    leaks = session.config.stash.get(_LEAK_KEY, [])
    if leaks:
        problems.append(
            f"the test run left {len(leaks)} temporary file(s) or folder(s) it did not clean up "
            f"(they would have gone to the system temporary directory): {', '.join(leaks[:20])}. "
            "Write under tmp_path, or delete what tempfile creates"
        )
    session.config.stash[_PROBLEMS_KEY] = problems
    if problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    problems = terminalreporter.config.stash.get(_PROBLEMS_KEY, [])
    if problems:
        terminalreporter.section("writes outside tmp_path", sep="=", red=True, bold=True)
        for problem in problems:
            terminalreporter.write_line(f"ERROR: {problem}", red=True)


@pytest.fixture
def wall() -> str:
    """The bubblewrap wall; skipped where it does not work (failed under
    ``CLOSUREBENCH_REQUIRE_WALL=1``, which ``.ci/run`` sets when bubblewrap is installed)."""
    from closurebench.sandbox import isolation_available

    works, why = isolation_available("bwrap")
    if not works:
        if os.environ.get("CLOSUREBENCH_REQUIRE_WALL") == "1":
            pytest.fail(f"the bwrap wall is required but does not work: {why}")
        pytest.skip(f"the bwrap wall does not work here: {why}")
    return "bwrap"


@pytest.fixture(scope="session")
def default_closure_split() -> Callable[[str], list[ClosureInstance]]:
    """``get(split)``: the records of a full default ClosureBench split (seed 0).

    ``generate_records(ClosureConfig(split=split, seed=0))`` through
    :func:`~closurebench.generate.closure.default_split_records`: generated on the first
    call for that split and shared by every test module of the session and by the majority
    baseline (a full split takes seconds). Records are frozen; each call returns a new
    list, so a test may reorder or filter it.
    """
    from closurebench.generate.closure import default_split_records

    def get(split: str) -> list[ClosureInstance]:
        return list(default_split_records(split, seed=0))

    return get
