"""Constants of STORM: action ids, compass tables, observation channels, payoff presets,
colours and defaults.

The action set and the defaults (8x8 grid, 5x5 view, 6 coins of each kind, 152-step
inner episodes, a 5-step freeze) are those of JaxMARL's STORM (``storm_2p``); the
payoff presets are the usual matrix games, with Melting Pot's "in the Matrix" values
for the stag hunt and chicken.
"""

import numpy as np

# ----------------------------------------------------------------------------- actions
TURN_LEFT, TURN_RIGHT, FORWARD, INTERACT, STAY = 0, 1, 2, 3, 4
NUM_ACTIONS = 5
ACTION_NAMES = ("turn_left", "turn_right", "forward", "interact", "stay")
# Change of facing each action makes (in quarter turns clockwise).
TURN = np.array([-1, 1, 0, 0, 0], np.int32)

# ----------------------------------------------------------------------------- compass
# Positions are (row, col); row 0 is the top of the rendered grid.
NORTH, EAST, SOUTH, WEST = 0, 1, 2, 3
NUM_DIRECTIONS = 4
DIRECTION_NAMES = ("north", "east", "south", "west")
# One step forward for each facing, as (d_row, d_col).
MOVES = np.array([[-1, 0], [0, 1], [1, 0], [0, -1]], np.int32)

# ------------------------------------------------------------------------------- coins
EMPTY, COOPERATE_COIN, DEFECT_COIN = 0, 1, 2
COOPERATE, DEFECT = 0, 1  # pure strategies: row / column index in a payoff matrix

# ------------------------------------------------------------------------------ beam
# Cells the interact beam covers, as (cells ahead, cells to the right), and the rank of
# each cell in the order targets are served (a lower rank is served first).
BEAM_CELLS = np.array([[1, 0], [2, 0], [1, -1], [1, 1]], np.int32)
BEAM_RANK = np.array([0, 1, 1, 1], np.int32)

# ------------------------------------------------------------------------ observations
# Channels of each cell of an agent's egocentric view.
CH_SELF = 0  # the observing agent (always the bottom-centre cell)
CH_OTHER = 1  # another agent
CH_COOPERATE_COIN = 2
CH_DEFECT_COIN = 3
CH_WALL = 4  # outside the grid
CH_BEAM = 5  # covered by an interact beam fired this step
CH_OTHER_FACING = 6  # 4 channels: the other agent faces ahead / right / back / left
CH_OTHER_READY = 10  # the other agent holds a coin and is not frozen
CH_OTHER_FROZEN = 11  # the other agent is frozen after an interaction
CH_FROZEN_INVENTORY = 12  # 2 channels: a frozen agent's cooperate / defect coins
NUM_CHANNELS = 14
CHANNEL_NAMES = (
    "self",
    "other_agent",
    "cooperate_coin",
    "defect_coin",
    "wall",
    "beam",
    "other_faces_ahead",
    "other_faces_right",
    "other_faces_back",
    "other_faces_left",
    "other_ready",
    "other_frozen",
    "frozen_cooperate_coins",
    "frozen_defect_coins",
)
# Features after the view: own inventory, readiness and freeze, and the partner's
# inventory while frozen after an interaction.
INVENTORY_FEATURES = (
    "cooperate_coins",
    "defect_coins",
    "ready",
    "freeze_steps_left",
    "partner_cooperate_coins",
    "partner_defect_coins",
)
NUM_INVENTORY_FEATURES = 6
# Per-agent features of the global state, after the grid.
AGENT_FEATURES = (
    "facing_north",
    "facing_east",
    "facing_south",
    "facing_west",
    "cooperate_coins",
    "defect_coins",
    "freeze_steps_left",
    "ready",
)

# --------------------------------------------------------------------------- payoffs
# payoff_matrix[p][row_action][col_action]: p = 0 the row player's payoff, p = 1 the
# column player's; action 0 = cooperate, 1 = defect.
PAYOFFS: dict[str, np.ndarray] = {
    # Iterated prisoner's dilemma (JaxMARL's default): R=3, S=0, T=5, P=1.
    "ipd": np.array([[[3, 0], [5, 1]], [[3, 5], [0, 1]]], np.float32),
    # Matching pennies: the row player wins on a match, the column player otherwise.
    "matching_pennies": np.array([[[1, -1], [-1, 1]], [[-1, 1], [1, -1]]], np.float32),
    # Stag hunt (cooperate = stag, defect = hare), Melting Pot's values.
    "stag_hunt": np.array([[[4, 0], [2, 2]], [[4, 2], [0, 2]]], np.float32),
    # Chicken (cooperate = dove, defect = hawk), Melting Pot's values.
    "chicken": np.array([[[3, 2], [5, 0]], [[3, 5], [2, 0]]], np.float32),
}
DEFAULT_PAYOFF = "ipd"

# -------------------------------------------------------------------------- defaults
GRID_SIZE = 8
OBS_SIZE = 5
NUM_COINS = 6  # of each kind
NUM_INNER_STEPS = 152
NUM_OUTER_STEPS = 1
FREEZE_PENALTY = 5

# --------------------------------------------------------------------------- colours
# RGB in [0, 1].
BACKGROUND_COLOUR = (0.96, 0.96, 0.96)
GRID_LINE_COLOUR = (0.75, 0.75, 0.75)
BEAM_COLOUR = (0.94, 0.86, 0.35)
COOPERATE_COIN_COLOUR = (0.17, 0.63, 0.17)
DEFECT_COIN_COLOUR = (0.84, 0.15, 0.16)
FROZEN_COLOUR = (0.35, 0.35, 0.35)
# First agents' colours (JaxMARL's palette); further agents get evenly spaced hues.
AGENT_COLOURS = (
    (1.0, 0.5, 0.055),  # orange
    (0.12, 0.47, 0.71),  # blue
    (0.93, 0.25, 0.48),  # pink
    (0.58, 0.4, 0.74),  # purple
    (0.16, 0.71, 0.96),  # light blue
    (0.55, 0.34, 0.29),  # brown
    (0.74, 0.74, 0.13),  # olive
    (0.09, 0.75, 0.81),  # cyan
)
