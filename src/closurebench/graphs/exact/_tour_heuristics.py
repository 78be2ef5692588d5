"""Upper-bound tours for the exact TSP solver: nearest neighbour + 2-opt + Or-opt.

Only used to prune the exact search (reduced-cost fixing needs a good upper bound); the
answer the solver returns is always proven optimal. Each local-search step evaluates every
move at once with numpy and applies the best one. Deterministic: no randomness.

Example:
    >>> import numpy as np
    >>> pts = np.array([(0, 0), (0, 1), (1, 1), (1, 0), (2, 0), (2, 1)])
    >>> d = np.sqrt(((pts[:, None] - pts[None]) ** 2).sum(-1))
    >>> t = improved_tour(d)
    >>> round(float(sum(d[t[i], t[(i + 1) % 6]] for i in range(6))), 6)
    6.0
"""

from __future__ import annotations

import numpy as np

__all__ = ["improved_tour", "nearest_neighbour", "or_opt_move", "two_opt_move"]

_EPS = 1e-9


def nearest_neighbour(d: np.ndarray, start: int) -> list[int]:
    """Greedy tour from ``start``, always moving to the closest unvisited node."""
    n = len(d)
    seen = np.zeros(n, dtype=bool)
    seen[start] = True
    tour, cur = [start], start
    for _ in range(n - 1):
        cur = int(np.argmin(np.where(seen, np.inf, d[cur])))
        seen[cur] = True
        tour.append(cur)
    return tour


def two_opt_move(t: np.ndarray, d: np.ndarray) -> bool:
    """Apply the best improving 2-opt reversal to ``t`` in place; False if none improves."""
    n = len(t)
    a, b = t, np.roll(t, -1)  # edge i is (a[i], b[i])
    delta = d[a[:, None], a[None, :]] + d[b[:, None], b[None, :]]
    delta -= d[a, b][:, None] + d[a, b][None, :]
    # Only i < j - 1 (non-adjacent edges, each pair once; edge n-1 and edge 0 are adjacent).
    delta[np.tril_indices(n, 1)] = np.inf
    delta[0, n - 1] = np.inf
    k = int(np.argmin(delta))
    i, j = divmod(k, n)
    if delta[i, j] >= -_EPS:
        return False
    t[i + 1 : j + 1] = t[i + 1 : j + 1][::-1].copy()
    return True


def or_opt_move(t: np.ndarray, d: np.ndarray) -> np.ndarray | None:
    """The tour after the best improving move of a 1-3 node segment, or None."""
    n = len(t)
    best: tuple[float, int, int, int, bool] | None = None
    nxt_edge = np.roll(t, -1)
    base = d[t, nxt_edge]  # edge j = (t[j], t[j+1])
    idx = np.arange(n)
    for length in (1, 2, 3):
        if n - length < 3:
            break
        s0 = t
        s1 = np.roll(t, -(length - 1))
        prev = np.roll(t, 1)
        nxt = np.roll(t, -length)
        gain = d[prev, s0] + d[s1, nxt] - d[prev, nxt]
        fwd = d[t[None, :], s0[:, None]] + d[s1[:, None], nxt_edge[None, :]] - base[None, :]
        rev = d[t[None, :], s1[:, None]] + d[s0[:, None], nxt_edge[None, :]] - base[None, :]
        # Edge j touches segment i (starting at i) iff (j - i) mod n in [n-1, length-1].
        off = (idx[None, :] - idx[:, None]) % n
        bad = (off >= n - 1) | (off <= length - 1)
        fwd[bad] = np.inf
        rev[bad] = np.inf
        for cost, reverse in ((fwd, False), (rev, True)):
            score = cost - gain[:, None]
            k = int(np.argmin(score))
            i, j = divmod(k, n)
            if score[i, j] < -_EPS and (best is None or score[i, j] < best[0]):
                best = (float(score[i, j]), length, i, j, reverse)
    if best is None:
        return None
    _, length, i, j, reverse = best
    seg_pos = [(i + k) % n for k in range(length)]
    seg = [int(t[p]) for p in seg_pos]
    if reverse:
        seg.reverse()
    after = int(t[j])  # insert between t[j] and t[j+1]
    rest = [int(t[p]) for p in range(n) if p not in set(seg_pos)]
    k = rest.index(after)
    return np.array(rest[: k + 1] + seg + rest[k + 1 :])


def improved_tour(d: np.ndarray, starts: int = 3) -> list[int]:
    """Best of ``starts`` nearest-neighbour tours, each polished by 2-opt and Or-opt."""
    n = len(d)
    best: tuple[float, list[int]] | None = None
    for s in range(min(starts, n)):
        t = np.array(nearest_neighbour(d, s))
        if n >= 5:
            while True:
                while two_opt_move(t, d):
                    pass
                moved = or_opt_move(t, d)
                if moved is None:
                    break
                t = moved
        cost = float(d[t, np.roll(t, -1)].sum())
        if best is None or cost < best[0] - _EPS:
            best = (cost, t.tolist())
    if best is None:
        return list(range(n))
    return best[1]
