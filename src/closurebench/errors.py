"""The single exception tree of closurebench.

Every error the package raises on purpose derives from :class:`ClosureBenchError`,
so callers can catch one class. Messages name the offending value, where it was
found and how to fix it.

Example:
    >>> from closurebench.errors import ClosureBenchError, ConfigError
    >>> try:
    ...     raise ConfigError("density 1.5 is out of range [0, 1]; pass a value in [0, 1]")
    ... except ClosureBenchError as exc:
    ...     print(type(exc).__name__)
    ConfigError
"""

from __future__ import annotations

__all__ = [
    "ClosureBenchError",
    "ConfigError",
    "DatasetFileError",
    "GraphError",
    "Resample",
    "SamplingError",
    "VerificationError",
    "shorten",
]

#: Default cap, in characters, on a value (a program, a graph, a list) quoted in a message.
MESSAGE_LIMIT = 400


class ClosureBenchError(Exception):
    """Root of every error raised deliberately by closurebench."""


class ConfigError(ClosureBenchError, ValueError):
    """A parameter or configuration value is invalid (names the value and the fix)."""


class GraphError(ClosureBenchError, ValueError):
    """A graph given to a graph routine is malformed (bad node id, wrong shape, ...)."""


class SamplingError(ClosureBenchError, RuntimeError):
    """Rejection sampling ran out of attempts before finding a well-posed instance."""


class VerificationError(ClosureBenchError, RuntimeError):
    """Two independent routes disagree on an instance's answer (a bug; never resampled)."""


class Resample(ClosureBenchError):
    """A drawn instance is not well posed (a tie, an empty answer set, ...); draw another."""


class DatasetFileError(ClosureBenchError, ValueError):
    """A dataset or results file is missing or malformed (names the file, line, field, fix)."""


def shorten(text: object, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` (``str()`` of any value) cut to at most about ``limit`` characters for a message.

    A long text keeps its head and tail and says how much it left out, so an error about
    a 300,000-character program or a 10,000-edge graph stays a readable line. Short texts
    come back unchanged.

    Args:
        text: The text or value to quote.
        limit: Most characters kept (head and tail together); at least 20.

    Returns:
        The text, or its head, ``" … [N characters omitted] … "`` and its tail.

    Example:
        >>> shorten("short")
        'short'
        >>> shorten("x" * 1000, 40)
        'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxx … [960 characters omitted] … xxxxxxxxxx'
    """
    s = text if isinstance(text, str) else str(text)
    limit = max(int(limit), 20)
    if len(s) <= limit:
        return s
    tail = limit // 4
    head = limit - tail
    return f"{s[:head]} … [{len(s) - limit} characters omitted] … {s[len(s) - tail :]}"
