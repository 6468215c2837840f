"""Constants of Overcooked V2: action ids, compass, terrain and object codes, rewards,
times and colours.

Numbers (action ids, directions, terrain codes, the bit layout of objects, rewards and
times) are JaxMARL 0.2.0's, so states, actions and layouts carry over unchanged.

**Objects** (what a cook holds, what lies on a counter, what is in a pot) are one
``int32`` each, a bit field: bit 0 a plate, bit 1 cooked, then two bits per ingredient
``i`` (bits ``2 + 2 i`` and ``3 + 2 i``) counting how many of it there are (0-3). An onion
(ingredient 0) is ``4``, a pot with three onions ``12``, once cooked ``14``; the plated
soup a cook carries away is ``15``. A recipe is the sum of its three ingredients.
"""

import numpy as np

# ----------------------------------------------------------------------------- actions
# JaxMARL's OvercookedActionsEnum: the four moves, stay, interact.
RIGHT, DOWN, LEFT, UP, STAY, INTERACT = 0, 1, 2, 3, 4, 5
NUM_ACTIONS = 6
ACTION_NAMES = ("right", "down", "left", "up", "stay", "interact")

# ----------------------------------------------------------------------------- compass
# Positions are (x, y): x to the right, y down (row y of the ASCII layout); grids are
# indexed [y, x]. Facings (JaxMARL's Direction): 0 up, 1 down, 2 right, 3 left.
FACE_UP, FACE_DOWN, FACE_RIGHT, FACE_LEFT = 0, 1, 2, 3
NUM_DIRECTIONS = 4
DIRECTION_NAMES = ("up", "down", "right", "left")
DIR_TO_VEC = np.array([[0, -1], [0, 1], [1, 0], [-1, 0]], np.int32)  # (dx, dy) per facing
OPPOSITE = np.array([FACE_DOWN, FACE_UP, FACE_LEFT, FACE_RIGHT], np.int32)
# The facing each move action turns the cook to (-1: stay and interact do not turn).
ACTION_TO_FACING = np.array([FACE_RIGHT, FACE_DOWN, FACE_LEFT, FACE_UP, -1, -1], np.int32)

# ----------------------------------------------------------------------------- terrain
# Static cell kinds (JaxMARL's StaticObject). Codes 2 and 3 (agents) only name
# observation-grid entries in JaxMARL; 8 is unused.
FLOOR = 0
COUNTER = 1  # JaxMARL's WALL: cooks cannot enter it, objects can be put on it
SERVING = 4  # JaxMARL's GOAL: deliver a dish here
POT = 5
RECIPE_INDICATOR = 6  # always shows the recipe of the episode
RECIPE_BUTTON = 7  # shows the recipe for a while after a cook presses it
PLATE_PILE = 9
INGREDIENT_PILE = 10  # ingredient i's pile is 10 + i
MAX_INGREDIENT_KINDS = 10  # piles '0' to '9'

# ASCII characters of JaxMARL's layouts ('A' marks a cook, standing on floor; 'O' is
# the old name of ingredient 0's pile).
TERRAIN_CHARS = {
    " ": FLOOR,
    "W": COUNTER,
    "X": SERVING,
    "P": POT,
    "R": RECIPE_INDICATOR,
    "L": RECIPE_BUTTON,
    "B": PLATE_PILE,
    "O": INGREDIENT_PILE,
    **{str(i): INGREDIENT_PILE + i for i in range(MAX_INGREDIENT_KINDS)},
}
COOK_CHAR = "A"
TERRAIN_NAMES = {
    FLOOR: "floor",
    COUNTER: "counter",
    SERVING: "serving counter",
    POT: "pot",
    RECIPE_INDICATOR: "recipe indicator",
    RECIPE_BUTTON: "recipe button",
    PLATE_PILE: "plate pile",
}

# ----------------------------------------------------------------------------- objects
EMPTY = 0
PLATE = 1
COOKED = 2
INGREDIENT_SHIFT = 2  # ingredient i's count sits in bits 2 + 2 i and 3 + 2 i
RECIPE_SIZE = 3  # every recipe has three ingredients; a pot holds at most three


def ingredient(i: int) -> int:
    """The object code of one ingredient ``i`` (``4 << 2 i``)."""
    return 1 << (INGREDIENT_SHIFT + 2 * i)


def recipe_code(ingredients: list[int] | tuple[int, ...]) -> int:
    """The object code of a recipe given as ingredient indices (``[0, 0, 1]``)."""
    return sum(ingredient(i) for i in ingredients)


# --------------------------------------------------------------------- rewards, times
DELIVERY_REWARD = 20.0  # a correct dish (negative_rewards: -20 for a wrong one)
POT_COOK_TIME = 20  # steps a pot cooks
INDICATOR_ACTIVATION_TIME = 10  # the recipe button's timer after a press
INDICATOR_ACTIVATION_COST = 5.0  # pressing the recipe button costs the team this much
URGENCY_CUTOFF = 40  # JaxMARL's settings constant (unused by its OvercookedV2)
PLACEMENT_IN_POT_REWARD = 3.0  # an ingredient the recipe still needs (negative_rewards: -3 otherwise)
POT_START_COOKING_REWARD = 5.0  # starting a pot that holds the recipe (start_cooking_interaction)
DISH_PICKUP_REWARD = 5.0  # taking the recipe's soup out of a pot with a plate
PLATE_PICKUP_REWARD = 3.0  # a plate while fewer are held than pots have something in them
SHAPED_REWARDS = {
    "PLACEMENT_IN_POT": PLACEMENT_IN_POT_REWARD,
    "POT_START_COOKING": POT_START_COOKING_REWARD,
    "DISH_PICKUP": DISH_PICKUP_REWARD,
    "PLATE_PICKUP": PLATE_PICKUP_REWARD,
}

# ---------------------------------------------------------------------- random resets
# JaxMARL's probabilities of what random_reset puts in hands, on counters and in pots.
INVENTORY_PROBS = (0.5, 0.1, 0.25, 0.15)  # nothing, plate, an ingredient, a dish
COUNTER_PROBS = (0.5, 0.1, 0.3, 0.1)  # nothing, plate, an ingredient, a dish
POT_PROBS = (0.4, 0.35, 0.15, 0.1)  # empty, filling, cooking, cooked

# ------------------------------------------------------------------------------ colours
FLOOR_COLOUR = (0.93, 0.91, 0.86)
COUNTER_COLOUR = (0.72, 0.58, 0.42)
SERVING_COLOUR = (0.45, 0.75, 0.45)
POT_COLOUR = (0.25, 0.25, 0.28)
INDICATOR_COLOUR = (0.55, 0.62, 0.78)
BUTTON_COLOUR = (0.78, 0.55, 0.70)
PLATE_PILE_COLOUR = (0.80, 0.85, 0.90)
GRID_LINE_COLOUR = (0.55, 0.50, 0.45)
PLATE_COLOUR = (0.98, 0.98, 0.98)
TIMER_COLOUR = (0.90, 0.20, 0.20)
READY_COLOUR = (0.30, 0.85, 0.30)
# Ingredient i is drawn in INGREDIENT_COLOURS[i] (onions yellow, then green, purple...).
INGREDIENT_COLOURS = np.array(
    [
        [0.95, 0.80, 0.20],
        [0.20, 0.60, 0.20],
        [0.60, 0.20, 0.80],
        [0.10, 0.75, 0.80],
        [0.90, 0.15, 0.15],
        [0.95, 0.55, 0.10],
        [0.55, 0.35, 0.15],
        [0.15, 0.25, 0.85],
        [0.95, 0.45, 0.70],
        [0.45, 0.45, 0.45],
    ],
    np.float32,
)
AGENT_COLOURS = np.array(
    [
        [0.20, 0.40, 0.85],
        [0.85, 0.25, 0.25],
        [0.25, 0.70, 0.30],
        [0.60, 0.30, 0.75],
        [0.95, 0.75, 0.15],
        [0.95, 0.50, 0.10],
    ],
    np.float32,
)
