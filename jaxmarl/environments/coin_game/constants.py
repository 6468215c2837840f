"""Constants of the Coin Game: action ids and moves, agent and coin indices, observation
channels, the default payoffs and colours.

Action ids and moves are JaxMARL's (so policies and notebooks written for it carry
over); the payoffs are those of Lerer & Peysakhovich (2017) and Foerster et al. (2018,
LOLA), as in the JaxMARL paper, Appendix B.3.
"""

import numpy as np

# Actions: a move on the wrap-around grid, as a (row, col) offset. The row index grows
# "up" (row 0 is drawn at the bottom), the column index to the right.
RIGHT, LEFT, UP, DOWN, STAY = 0, 1, 2, 3, 4
NUM_ACTIONS = 5
MOVES = np.array([[0, 1], [0, -1], [1, 0], [-1, 0], [0, 0]], np.int32)
ACTION_NAMES = ("right", "left", "up", "down", "stay")

# Agents and coins share colour indices: agent_0 is red and owns the red coin.
RED, BLUE = 0, 1

# Channels of the grid observations, from the observer's point of view.
SELF, OTHER, OWN_COIN, OTHER_COIN = 0, 1, 2, 3
NUM_CHANNELS = 4

# payoff_matrix[i] = [reward to agent i for taking the red coin, for taking the blue coin,
# penalty to agent i when the other agent takes agent i's coin].
DEFAULT_PAYOFF = ((1.0, 1.0, -2.0), (1.0, 1.0, -2.0))

# Defaults (JaxMARL's).
GRID_SIZE = 3
NUM_INNER_STEPS = 10
NUM_OUTER_STEPS = 10

# Colours (RGB in [0, 1]) for rendering.
BACKGROUND = (0.96, 0.96, 0.96)
GRID_LINE = (0.70, 0.70, 0.70)
AGENT_COLOURS = ((0.85, 0.25, 0.25), (0.25, 0.35, 0.85))
COIN_COLOURS = ((1.00, 0.55, 0.55), (0.55, 0.65, 1.00))
