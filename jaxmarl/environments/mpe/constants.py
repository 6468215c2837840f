"""Constants of the MPE family: action ids, physics defaults and colours.

Physics values are those of PettingZoo's MPE (``mpe2``), from OpenAI's original
multi-agent particle environments.
"""

import numpy as np

# Action types (the ``action_type`` keyword of every MPE environment).
DISCRETE_ACT = "Discrete"
CONTINUOUS_ACT = "Continuous"
ACTION_TYPES = (DISCRETE_ACT, CONTINUOUS_ACT)

# Discrete movement actions and the unit force each applies (before scaling by accel).
NOOP, LEFT, RIGHT, DOWN, UP = 0, 1, 2, 3, 4
NUM_MOVES = 5
MOVE_VECTORS = np.array([[0.0, 0.0], [-1.0, 0.0], [1.0, 0.0], [0.0, -1.0], [0.0, 1.0]], np.float64)

# World physics.
DIM_P = 2  # position dimensionality
DT = 0.1  # simulation time step
DAMPING = 0.25  # fraction of velocity lost each step
CONTACT_FORCE = 1e2  # stiffness of the soft collision response
CONTACT_MARGIN = 1e-3  # softness of the collision response
DEFAULT_ACCEL = 5.0  # force per unit action ("sensitivity") when an agent sets none
DEFAULT_SIZE = 0.05  # entity radius
DEFAULT_MASS = 1.0
MAX_STEPS = 25  # episode length (mpe2's max_cycles)

# Colours (RGB in [0, 1]) as in mpe2.
AGENT_COLOUR = (0.35, 0.35, 0.85)
ADVERSARY_COLOUR = (0.85, 0.35, 0.35)
GOOD_COLOUR = (0.35, 0.85, 0.35)
LANDMARK_COLOUR = (0.25, 0.25, 0.25)
OBSTACLE_COLOUR = (0.25, 0.25, 0.25)
