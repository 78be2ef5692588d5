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
]


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
