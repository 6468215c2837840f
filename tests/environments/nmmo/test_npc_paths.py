"""NPC chase moves against a plain breadth-first search written out in Python: the
batched search stops once every chasing NPC's start is reached, and must choose the
moves the full search (every relaxation run) chooses."""

from collections import deque

import jax.numpy as jnp
import numpy as np
from fast_compile import jit as fast_jit

from jaxmarl.environments.nmmo import constants as C
from jaxmarl.environments.nmmo.npc import _ASTAR_ORDER, _BFS_ITERATIONS, _WINDOW, _bfs_moves

BIG = 10_000


def reference_move(habitable: np.ndarray, start: tuple[int, int], goal: tuple[int, int]) -> int:
    """The rule in words: distances from the goal through passable tiles of the
    (2w + 1)^2 window around the start, at most ``_BFS_ITERATIONS`` steps; step to the
    first neighbour (A*'s order) with the smallest distance; with none reachable, to the
    first passable neighbour closest to the goal by L1; stay when boxed in or arrived."""
    if start == goal:
        return C.STAY
    w, size = _WINDOW, habitable.shape[0]

    def passable(r: int, c: int) -> bool:
        in_window = abs(r - start[0]) <= w and abs(c - start[1]) <= w
        return in_window and 0 <= r < size and 0 <= c < size and bool(habitable[r, c])

    dist: dict[tuple[int, int], int] = {}
    if abs(goal[0] - start[0]) <= w and abs(goal[1] - start[1]) <= w:
        dist[goal] = 0
        queue = deque([goal])
        while queue:
            r, c = queue.popleft()
            if dist[(r, c)] == _BFS_ITERATIONS:
                continue
            for dr, dc in C.MOVES[:4]:
                nxt = (r + int(dr), c + int(dc))
                if nxt not in dist and passable(*nxt):
                    dist[nxt] = dist[(r, c)] + 1
                    queue.append(nxt)
    cells = [(start[0] + int(C.MOVES[m][0]), start[1] + int(C.MOVES[m][1]), m) for m in _ASTAR_ORDER]
    open_ = [(r, c, m) for r, c, m in cells if passable(r, c)]
    reached = [(dist[(r, c)], m) for r, c, m in open_ if (r, c) in dist]
    if reached:
        best = min(d for d, _ in reached)
        return next(m for d, m in reached if d == best)
    if not open_:
        return C.STAY
    score = [abs(goal[0] - r) + abs(goal[1] - c) for r, c, _ in open_]
    return open_[int(np.argmin(score))][2]


def test_chase_moves_match_a_full_breadth_first_search():
    rng = np.random.default_rng(0)
    moves = fast_jit(_bfs_moves)
    size, n = 40, 64
    checked = 0
    for density in (0.0, 0.25, 0.45):
        habitable = rng.random((size, size)) >= density
        start = rng.integers(0, size, (n, 2))
        # Goals near (the chases NPCs make), far (outside the window) and on the start.
        goal = np.clip(start + rng.integers(-9, 10, (n, 2)), 0, size - 1)
        goal[: n // 8] = start[: n // 8]
        habitable[start[:, 0], start[:, 1]] = True
        active = rng.random(n) < 0.8
        got = np.asarray(moves(*map(jnp.asarray, (habitable, start, goal, active))))
        for i in np.flatnonzero(active):
            want = reference_move(habitable, tuple(start[i]), tuple(goal[i]))
            assert got[i] == want, (density, i, start[i], goal[i], got[i], want)
            checked += 1
    assert checked > 100


def test_a_path_longer_than_the_search_falls_back_to_the_heuristic():
    # A wall with one gap far away: the goal is 2 tiles off but the path is longer than
    # the search allows, so the NPC steps toward the goal by L1 (against the wall).
    size = 40
    habitable = np.ones((size, size), bool)
    habitable[20, :] = False
    habitable[20, 2] = True
    start, goal = np.array([[19, 20]]), np.array([[21, 20]])
    got = int(_bfs_moves(jnp.asarray(habitable), jnp.asarray(start), jnp.asarray(goal), jnp.array([True]))[0])
    assert got == reference_move(habitable, (19, 20), (21, 20))
    # The gap is outside the 17 x 17 window: no path, and south is walled, so the first
    # open neighbour closest by L1 wins: north, west and east tie at 3, north comes first.
    assert got == C.NORTH
