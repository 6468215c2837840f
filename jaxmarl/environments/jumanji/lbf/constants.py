"""Constants of LevelBasedForaging: action ids and moves, default instance sizes (Jumanji
1.1.2's ``LevelBasedForaging-v0``) and the viewer's colours.

Positions are ``(row, col)`` cells of the ``grid_size`` x ``grid_size`` grid, row 0 at the
top: ``UP`` decreases the row, ``RIGHT`` increases the column (Jumanji's ``MOVES``).
"""

import numpy as np

# Actions, Jumanji's numbering.
NOOP, UP, DOWN, LEFT, RIGHT, LOAD = 0, 1, 2, 3, 4, 5
NUM_ACTIONS = 6
ACTION_NAMES = ("noop", "up", "down", "left", "right", "load")
# MOVES[action] = (d_row, d_col); NOOP and LOAD stay put.
MOVES = np.array([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1], [0, 0]], np.int32)

# Defaults of Jumanji's LevelBasedForaging-v0 (its env's default generator and time limit).
GRID_SIZE = 8
NUM_AGENTS = 2
NUM_FOOD = 2
MAX_AGENT_LEVEL = 2
FORCE_COOP = True  # the env's default; RandomGenerator's own default is False, as in Jumanji
TIME_LIMIT = 100

# Vector observation: an entity out of view (or eaten food) reads (-1, -1, 0).
HIDDEN = (-1, -1, 0)
# Grid observation layers.
AGENT_LAYER, FOOD_LAYER, ACCESS_LAYER = 0, 1, 2
NUM_LAYERS = 3

# Colours (RGB in [0, 1]) for rendering, after Jumanji's viewer: a black board with white
# grid lines, white foragers, red apples, levels in white on black badges.
BACKGROUND = (0.0, 0.0, 0.0)
GRID_LINE = (1.0, 1.0, 1.0)
AGENT_COLOUR = (1.0, 1.0, 1.0)
FOOD_COLOUR = (0.78, 0.25, 0.21)
LEAF_COLOUR = (0.36, 0.62, 0.20)
BADGE_COLOUR = (0.0, 0.0, 0.0)
BADGE_TEXT = (1.0, 1.0, 1.0)
