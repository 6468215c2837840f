"""Constants of Overcooked: action ids, compass, terrain and item codes, rewards, the
26 observation channels and colours.

Action ids, directions, rewards and channel order are those of overcooked-ai 1.1.0
(``Action.INDEX_TO_ACTION``, ``BASE_REW_SHAPING_PARAMS``,
``OvercookedGridworld.lossless_state_encoding``), which JaxMARL also uses.
"""

import numpy as np

# ----------------------------------------------------------------------------- actions
# overcooked-ai's Action.INDEX_TO_ACTION: the four moves, stay, interact.
NORTH, SOUTH, EAST, WEST, STAY, INTERACT = 0, 1, 2, 3, 4, 5
NUM_ACTIONS = 6
ACTION_NAMES = ("north", "south", "east", "west", "stay", "interact")

# ----------------------------------------------------------------------------- compass
# Positions are (x, y): x to the right, y down (row y of the ASCII layout). Facings use
# the first four action ids; a move action also turns the cook to face that way.
NUM_DIRECTIONS = 4
DIRECTION_NAMES = ACTION_NAMES[:4]
DIR_TO_VEC = np.array([[0, -1], [0, 1], [1, 0], [-1, 0]], np.int32)  # (dx, dy) per facing

# ----------------------------------------------------------------------------- terrain
FLOOR, COUNTER, POT, ONION_DISPENSER, DISH_DISPENSER, SERVING = 0, 1, 2, 3, 4, 5
TERRAIN_NAMES = ("floor", "counter", "pot", "onion dispenser", "dish dispenser", "serving counter")
# ASCII characters of overcooked-ai layouts ('1' and '2' are the cooks, on floor).
TERRAIN_CHARS = {" ": FLOOR, "X": COUNTER, "P": POT, "O": ONION_DISPENSER, "D": DISH_DISPENSER, "S": SERVING}
COOK_CHARS = ("1", "2")

# ------------------------------------------------------------------------------- items
# What a cook holds or a counter carries. A soup is always a finished soup (only a
# ready soup leaves its pot), made of 1 to 3 onions.
NOTHING, ONION, DISH, SOUP = 0, 1, 2, 3
ITEM_NAMES = ("nothing", "onion", "dish", "soup")

# --------------------------------------------------------------------------------- pots
MAX_ONIONS = 3  # a pot holds at most three onions
COOK_TIME = 20  # steps a soup cooks (overcooked-ai's default recipe time)
IDLE = -1  # cooking tick of a pot that has not started cooking (or is empty)

# ------------------------------------------------------------------------------ rewards
DELIVERY_REWARD = 20.0  # the only order of the classic layouts: a three-onion soup
PLACEMENT_IN_POT_REWARD = 3.0
DISH_PICKUP_REWARD = 3.0  # only when the dish is useful (see env docstring)
SOUP_PICKUP_REWARD = 5.0

# -------------------------------------------------------------------------- observation
# overcooked-ai's lossless_state_encoding, from the observing cook's perspective.
NUM_CHANNELS = 26
CH_SELF_POS, CH_OTHER_POS = 0, 1
CH_SELF_DIR, CH_OTHER_DIR = 2, 6  # four channels each, in facing order N, S, E, W
CH_POT, CH_COUNTER, CH_ONION_DISP, CH_TOMATO_DISP, CH_DISH_DISP, CH_SERVE = 10, 11, 12, 13, 14, 15
CH_ONIONS_IN_POT, CH_TOMATOES_IN_POT = 16, 17
CH_ONIONS_IN_SOUP, CH_TOMATOES_IN_SOUP = 18, 19
CH_COOK_TIME_LEFT, CH_SOUP_DONE = 20, 21
CH_DISHES, CH_ONIONS, CH_TOMATOES = 22, 23, 24
CH_URGENCY = 25
URGENCY_STEPS = 40  # the urgency channel is on while fewer steps than this remain
CHANNEL_NAMES = (
    "self position",
    "other position",
    "self facing north",
    "self facing south",
    "self facing east",
    "self facing west",
    "other facing north",
    "other facing south",
    "other facing east",
    "other facing west",
    "pot",
    "counter",
    "onion dispenser",
    "tomato dispenser",
    "dish dispenser",
    "serving counter",
    "onions in pot",
    "tomatoes in pot",
    "onions in soup",
    "tomatoes in soup",
    "cooking time left",
    "soup done",
    "dishes",
    "onions",
    "tomatoes",
    "urgency",
)
# Agent 1 sees the same channels with the two cooks' blocks swapped.
SWAP_COOKS = np.array([1, 0, 6, 7, 8, 9, 2, 3, 4, 5, *range(10, NUM_CHANNELS)], np.int32)

# ------------------------------------------------------------------------------ colours
FLOOR_COLOUR = (0.93, 0.91, 0.86)
COUNTER_COLOUR = (0.72, 0.58, 0.42)
POT_COLOUR = (0.25, 0.25, 0.28)
ONION_DISPENSER_COLOUR = (0.85, 0.75, 0.45)
DISH_DISPENSER_COLOUR = (0.70, 0.80, 0.90)
SERVING_COLOUR = (0.45, 0.75, 0.45)
TERRAIN_COLOURS = np.array(
    [
        FLOOR_COLOUR,
        COUNTER_COLOUR,
        POT_COLOUR,
        ONION_DISPENSER_COLOUR,
        DISH_DISPENSER_COLOUR,
        SERVING_COLOUR,
    ],
    np.float32,
)
GRID_LINE_COLOUR = (0.55, 0.50, 0.45)
ONION_COLOUR = (0.95, 0.80, 0.20)
DISH_COLOUR = (0.98, 0.98, 0.98)
SOUP_COLOUR = (0.90, 0.45, 0.15)
TIMER_COLOUR = (0.90, 0.20, 0.20)
READY_COLOUR = (0.30, 0.85, 0.30)
AGENT_COLOURS = np.array([[0.20, 0.40, 0.85], [0.85, 0.25, 0.25]], np.float32)
