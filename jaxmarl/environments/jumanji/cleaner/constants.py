"""Constants of Cleaner: tile values, action ids and moves, defaults and colours.

Tile values, action ids and defaults are Jumanji 1.1.2's (``Cleaner-v0``); colours are
those of Jumanji's ``CleanerViewer``.
"""

import numpy as np

# Tile values of the grid (Jumanji's).
DIRTY, CLEAN, WALL = 0, 1, 2
NUM_TILE_VALUES = 3

# Actions: a move as a (row, col) offset; row 0 is the top row of the maze.
UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
NUM_ACTIONS = 4
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], np.int32)
ACTION_NAMES = ("up", "right", "down", "left")

# Defaults of Jumanji's Cleaner-v0.
NUM_ROWS = 10
NUM_COLS = 10
NUM_AGENTS = 3
PENALTY_PER_TIMESTEP = 0.5

# Colours (RGB in [0, 1]), as in Jumanji's CleanerViewer: a cell holding k cleaners is
# red with opacity 1 - AGENT_ALPHA**k over a white background.
TILE_COLOURS = ((0.0, 1.0, 0.0), (1.0, 1.0, 1.0), (0.0, 0.0, 0.0))  # dirty, clean, wall
AGENT_COLOUR = (1.0, 0.0, 0.0)
AGENT_ALPHA = 0.5
BACKGROUND = (1.0, 1.0, 1.0)
FRAME = (0.0, 0.0, 0.0)
