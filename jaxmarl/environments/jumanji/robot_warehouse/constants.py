"""Numbers of RobotWarehouse: actions, directions, the default instance and the viewer's colours."""

from __future__ import annotations

import numpy as np

# Actions (Jumanji's numbering).
NOOP = 0
FORWARD = 1
LEFT = 2
RIGHT = 3
TOGGLE_LOAD = 4
NUM_ACTIONS = 5

# Directions a robot faces, and the (row, col) step of a forward move in each.
UP = 0
RIGHT_DIR = 1
DOWN = 2
LEFT_DIR = 3
NUM_DIRECTIONS = 4
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], np.int32)  # UP, RIGHT, DOWN, LEFT

# RobotWarehouse-v0's instance ("tiny-4ag-easy" of the original RWARE).
SHELF_ROWS = 2
SHELF_COLUMNS = 3
COLUMN_HEIGHT = 8
NUM_AGENTS = 4
SENSOR_RANGE = 1
REQUEST_QUEUE_SIZE = 8
TIME_LIMIT = 500

# Observation layout of one robot: its own features, then per cell of its view.
OWN_FEATURES = 8  # row, col, carrying, one-hot direction (4), on a highway
AGENT_CELL_FEATURES = 5  # another robot there, its one-hot direction (4)
SHELF_CELL_FEATURES = 2  # a shelf there, it is requested

# Viewer colours (RGB in [0, 1]), Jumanji's.
BACKGROUND = (1.0, 1.0, 1.0)
GRID_COLOUR = (0.0, 0.0, 0.0)
SHELF_COLOUR = (72 / 255, 61 / 255, 139 / 255)  # dark slate blue
SHELF_REQUESTED_COLOUR = (0.0, 128 / 255, 128 / 255)  # teal
AGENT_COLOUR = (1.0, 140 / 255, 0.0)  # dark orange
AGENT_LOADED_COLOUR = (1.0, 0.0, 0.0)  # red
AGENT_DIRECTION_COLOUR = (0.0, 0.0, 0.0)
GOAL_COLOUR = (60 / 255, 60 / 255, 60 / 255)
