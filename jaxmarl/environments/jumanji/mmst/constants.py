"""Constants of MMST: Jumanji 1.1.2's node and action codes, default sizes and colours."""

from __future__ import annotations

# ----------------------------------------------------------------------------- nodes
UTILITY_NODE = -1  # node_types entry of a node no agent has to connect
EMPTY_NODE = -1  # padding of State.path, and "no edge" when an action is looked up

# ------------------------------------------------------------- resolved action codes
# What Jumanji makes of an agent's action before moving it (see MMST's docstring).
INVALID_CHOICE = -1  # no usable edge to the chosen node, or the agent has finished
INVALID_TIE_BREAK = -2  # another agent, earlier in this step's random order, took the node
INVALID_ALREADY_TRAVERSED = -3  # the chosen node is already on the agent's own tree

# -------------------------------------------------------- defaults (Jumanji's MMST-v0)
NUM_NODES = 36
NUM_EDGES = 72
MAX_DEGREE = 5
NUM_AGENTS = 3
NUM_NODES_PER_AGENT = 4
TIME_LIMIT = 70
REWARD_VALUES = (10.0, -1.0, -1.0)  # (connect a node, any other step, invalid choice)

# ---------------------------------------------------------- rendering (Jumanji's viewer)
BACKGROUND = (1.0, 1.0, 1.0)
EDGE_GREY = (100 / 255, 100 / 255, 100 / 255)  # an edge no agent has used
NODE_BLACK = (0.0, 0.0, 0.0)  # fill of a utility node
RING_BLUE = (50 / 255, 50 / 255, 160 / 255)  # ring of a node without an agent
RING_YELLOW = (200 / 255, 200 / 255, 0 / 255)  # ring of a node an agent stands on
LAYOUT_SEED = 42  # seed of the spring layout's starting positions
LAYOUT_ITERATIONS = 100
PALETTE_SEED = 0  # seed of the agents' colours
