"""Constants of Connector: the cell codes of the grid, the actions, Jumanji's defaults and
the colours of the renderer.

**Cell codes** (Jumanji's): agent ``i`` (0-based) owns the three values ``3 i + 1`` (a cell
of its wire, the *path*), ``3 i + 2`` (its *head*, the wire's moving end) and ``3 i + 3``
(its *target*); ``0`` is an empty cell. So ``(value - 1) // 3`` is the owner of a
non-empty cell and ``(value - 1) % 3`` its kind (``0`` path, ``1`` head, ``2`` target).
"""

import numpy as np

# Cell codes of agent 0; agent i adds 3 * i.
EMPTY = 0
PATH = 1
POSITION = 2  # a head: Jumanji's name
TARGET = 3
NUM_CODES = 3  # values per agent

# Actions (Jumanji's ids) and their (row, col) moves: "up" lowers the row index.
NOOP, UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3, 4
NUM_ACTIONS = 5
MOVES = np.array([[0, 0], [-1, 0], [0, 1], [1, 0], [0, -1]], np.int32)
ACTION_NAMES = ("noop", "up", "right", "down", "left")

# Jumanji's defaults for Connector-v3.
GRID_SIZE = 10
NUM_AGENTS = 10
TIME_LIMIT = 50
CONNECTED_REWARD = 1.0
TIMESTEP_REWARD = -0.03

# Rendering (RGB in [0, 1]): Jumanji's viewer draws an empty cell white, a head in its
# agent's colour, a path in that colour at 25% opacity over white, and a target as a white
# cell holding a half-size square of the colour; every cell has a black edge.
BACKGROUND = (1.0, 1.0, 1.0)
EDGE = (0.0, 0.0, 0.0)
PATH_OPACITY = 0.25
