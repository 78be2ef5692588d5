"""Shards: one contiguous slice of a split, written so that the slices merge to its bytes.

``closurebench generate closure|grit ... --shard i/N`` (1-based: ``1/4`` .. ``4/4``) writes
the ``i``-th of ``N`` contiguous blocks of the split's plan: positions ``[⌊(i-1)·T/N⌋,
⌊i·T/N⌋)`` of its ``T`` units (ClosureBench: planned structures, which are its instances,
or, for ``--subset encoding-study``, structures of 3 records each; GRIT: base graphs, 8
records each). The block holds exactly the records the unsharded run writes at those
positions, in the same order and bytes, so the shards in index order concatenate to the
unsharded file; block sizes differ by at most one unit.

Positions are not independent: ClosureBench draws a category's structures in index order
(no structure twice, the answer-stratum cap) and never repeats a question text within a
split; GRIT redraws a graph whose structure an earlier graph of the split has. A shard
therefore replays the cheap part of the positions before it: ClosureBench's structure
stage (sampling and the solver's answer, no Ein / Python routes) and question rendering
(no read-back); GRIT the earlier graphs that could repeat one of its own (same task and
n, i.e. those beside its first graphs: sizes grow with the round), solved but not written.

Files: ``<stem>.shard-<i>-of-<N>.jsonl`` beside the split's name (``closure-heldout.jsonl``
→ ``closure-heldout.shard-1-of-4.jsonl``), with its manifest
``closure-heldout.shard-1-of-4.manifest.json`` and the suite's schema. The manifest is the
split's manifest of the slice (counts, sha256 and arguments of the whole split) plus a
``shard`` entry (:func:`shard_entry`): index, count, unit, the slice's range, the total
and the whole split's file name. ``closurebench merge`` (:mod:`closurebench.generate.merge`)
checks them and writes the whole file and the unsharded run's manifest.

Example:
    >>> s = Shard.parse("2/4")
    >>> s, s.range(10), s.file_name("closure-heldout.jsonl")
    (Shard(index=2, count=4), (2, 5), 'closure-heldout.shard-2-of-4.jsonl')
    >>> [Shard(i, 4).range(10) for i in range(1, 5)]
    [(0, 2), (2, 5), (5, 7), (7, 10)]
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from closurebench.errors import ConfigError

__all__ = ["SHARD_FILE", "Shard", "shard_entry"]

#: A shard's file name: ``<stem>.shard-<i>-of-<N>.jsonl`` (groups: stem, index, count).
SHARD_FILE = re.compile(r"^(?P<stem>.+)\.shard-(?P<index>\d+)-of-(?P<count>\d+)\.jsonl$")

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$")


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` of ``count`` (1-based: ``Shard(1, 4)`` .. ``Shard(4, 4)``).

    Attributes:
        index: Which block, 1 to ``count``.
        count: How many blocks the split is cut into (at least 1).
    """

    index: int
    count: int

    def __post_init__(self) -> None:
        if isinstance(self.count, bool) or not isinstance(self.count, int) or self.count < 1:
            raise ConfigError(
                f"shard {self.index}/{self.count}: the number of shards must be a whole number "
                "of at least 1 (e.g. 1/4: the first of 4 shards)"
            )
        if isinstance(self.index, bool) or not isinstance(self.index, int):
            raise ConfigError(f"shard index {self.index!r} must be a whole number")
        if not 1 <= self.index <= self.count:
            raise ConfigError(
                f"shard {self.index}/{self.count} is out of range: shards are numbered from 1, "
                f"so pass 1/{self.count} .. {self.count}/{self.count}"
            )

    @classmethod
    def parse(cls, text: str) -> Shard:
        """Read ``"i/N"`` (1-based).

        Raises:
            ConfigError: not of the form ``i/N`` with ``1 <= i <= N``, naming the value.

        Example:
            >>> Shard.parse(" 3 / 4 ")
            Shard(index=3, count=4)
            >>> Shard.parse("0/4")
            Traceback (most recent call last):
            ...
            closurebench.errors.ConfigError: --shard '0/4': shard 0/4 is out of range: shards are numbered from 1, so pass 1/4 .. 4/4
        """  # noqa: E501
        m = _SPEC.match(text)
        if m is None:
            raise ConfigError(
                f"--shard {text!r} is not of the form i/N (e.g. 1/4: the first of 4 shards, "
                "numbered from 1)"
            )
        try:
            return cls(int(m.group(1)), int(m.group(2)))
        except ConfigError as exc:
            raise ConfigError(f"--shard {text!r}: {exc}") from None

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def range(self, total: int, unit: str = "units") -> tuple[int, int]:
        """The positions ``[start, stop)`` of this block of ``total`` units.

        Args:
            total: Units of the whole split.
            unit: What a unit is, for the message (``"structures"``, ``"graphs"``).

        Raises:
            ConfigError: there are fewer units than shards (a shard would be empty).

        Example:
            >>> Shard(3, 3).range(7), Shard(1, 1).range(7)
            ((4, 7), (0, 7))
            >>> Shard(1, 4).range(3, "graphs")
            Traceback (most recent call last):
            ...
            closurebench.errors.ConfigError: --shard 1/4: the split has 3 graphs, fewer than 4 shards (each needs one); use at most 3 shards or a larger --count
        """  # noqa: E501
        if total < self.count:
            fix = f"use at most {total} shards or a larger --count" if total else "raise --count"
            raise ConfigError(
                f"--shard {self}: the split has {total} {unit}, fewer than {self.count} "
                f"shards (each needs one); {fix}"
            )
        return (self.index - 1) * total // self.count, self.index * total // self.count

    def file_name(self, name: str) -> str:
        """This shard's file name for the whole split's file ``name``.

        Example:
            >>> Shard(1, 4).file_name("grit-test.jsonl")
            'grit-test.shard-1-of-4.jsonl'
        """
        p = Path(name)
        return f"{p.stem}.shard-{self.index}-of-{self.count}{p.suffix or '.jsonl'}"


def shard_entry(shard: Shard, total: int, unit: str, file: str) -> dict[str, Any]:
    """The ``shard`` entry of a shard's manifest.

    Args:
        shard: Which shard.
        total: Units in the whole split.
        unit: What a position is (``"structures"`` or ``"graphs"``).
        file: The whole split's file name (what ``merge`` writes by default).

    Example:
        >>> shard_entry(Shard(2, 4), 10, "graphs", "grit-test.jsonl")["start"]
        2
    """
    start, stop = shard.range(total)
    return {
        "index": shard.index,
        "of": shard.count,
        "unit": unit,
        "start": start,
        "stop": stop,
        "total": total,
        "file": file,
    }
