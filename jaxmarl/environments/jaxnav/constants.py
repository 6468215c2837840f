"""Constants of JaxNav: discrete actions, robot footprints, map ids and defaults, colours.

The numbers are JaxMARL 0.2.0's (``jaxmarl/environments/jaxnav``), which follow the
"No Regrets" paper (Rutherford et al., 2024, appendix on JaxNav).
"""

from __future__ import annotations

import numpy as np

# ----------------------------------------------------------------- actions
# Discrete action i commands (linear velocity m/s, angular velocity rad/s) DISCRETE_ACTS[i]:
# three speeds (0, 0.5, 1) times five turn rates (0.5, 0.25, 0, -0.25, -0.5).
DISCRETE_ACTS = np.array(
    [[v, w] for v in (0.0, 0.5, 1.0) for w in (0.5, 0.25, 0.0, -0.25, -0.5)], dtype=np.float32
)
NUM_DISCRETE_ACTIONS = len(DISCRETE_ACTS)  # 15
DISCRETE_NOOP = 2  # (0, 0): stand still
MAX_TURN_COMMAND = np.pi / 6  # bound of the continuous angular-velocity command (rad/s)

# ----------------------------------------------------------------- robots
# Footprints are convex polygons in the robot's frame (x forward), vertices in order.
SQUARE_ROBOT = np.array([[-0.25, -0.25], [-0.25, 0.25], [0.25, 0.25], [0.25, -0.25]], np.float32)
JACKAL_ROBOT = np.array([[-0.254, -0.215], [-0.254, 0.215], [0.254, 0.215], [0.254, -0.215]], np.float32)
HEADING_LINE = np.array([[0.0, 0.0], [0.254, 0.0]], np.float32)  # drawn from the centre forward

# ----------------------------------------------------------------- maps
MAP_IDS = ("Grid-Rand", "Grid-Rand-Poly", "Grid-Rand-Barn", "Grid-Rand-Poly-Single", "Grid-Buffer")
DEFAULT_MAP_PARAMS = {"map_size": (11, 11), "fill": 0.3}
GENERATOR_GOAL_RADIUS = 0.3  # clearance of a sampled goal from walls (m), Map.goal_radius
SAMPLE_TEST_CASE_TYPES = ("random", "grid")

# Barn maps (Perille et al., 2020): a cellular automaton smooths random fill, then start
# and goal cells are drawn at least BARN_MIN_CELLS cells apart (in x or y) in the free
# space left after inflating obstacles by two cells.
SMOOTHING_OFFSETS = np.array([[0, 1], [0, -1], [1, 0], [-1, 0], [1, 1], [1, -1], [-1, 1], [-1, -1]], np.int32)
INFLATE_OFFSETS_3 = SMOOTHING_OFFSETS
INFLATE_OFFSETS_5 = np.concatenate(
    [
        SMOOTHING_OFFSETS,
        np.array(
            [
                [2, 0],
                [2, 1],
                [2, 2],
                [1, 2],
                [0, 2],
                [-1, 2],
                [-2, 2],
                [-2, 1],
                [-2, 0],
                [-2, -1],
                [-2, -2],
                [-1, -2],
                [0, -2],
                [1, -2],
                [2, -2],
                [2, -1],
            ],
            np.int32,
        ),
    ]
)
BARN_MIN_CELLS = 19

# ----------------------------------------------------------------- metrics
MONITORED_METRICS = ("NumC", "GoalR", "AgentC", "MapC", "TimeO", "Return")

# ----------------------------------------------------------------- colours (RGB in [0, 1])
FLOOR_COLOUR = (1.0, 1.0, 1.0)
WALL_COLOUR = (0.15, 0.15, 0.15)
ROBOT_COLOURS = np.array(
    [
        [0.85, 0.15, 0.15],
        [0.15, 0.35, 0.85],
        [0.15, 0.65, 0.25],
        [0.55, 0.25, 0.70],
        [0.95, 0.55, 0.10],
        [0.90, 0.45, 0.65],
        [0.80, 0.75, 0.10],
        [0.55, 0.35, 0.20],
        [0.50, 0.50, 0.50],
        [0.10, 0.70, 0.75],
    ],
    np.float32,
)
DONE_COLOUR = (0.35, 0.35, 0.35)
LIDAR_COLOUR = (0.20, 0.45, 0.95)
HEADING_COLOUR = (0.0, 0.0, 0.0)
