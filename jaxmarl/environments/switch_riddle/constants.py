"""Constants of the Switch Riddle: action ids, the DIAL time limit and colours.

The actions and the limit are those of the riddle as Foerster et al. (2016, "Learning to
Communicate with Deep Multi-Agent Reinforcement Learning", the DIAL paper) pose it.
"""

# Actions of the prisoner in the room (the others must pass NONE).
NONE, TOGGLE, TELL = 0, 1, 2
NUM_ACTIONS = 3
ACTION_NAMES = ("none", "toggle", "tell")

MIN_AGENTS = 2  # with one prisoner the riddle is trivial and 4n - 6 < 1


def dial_time_limit(num_agents: int) -> int:
    """The DIAL episode length for ``num_agents`` prisoners: ``4n - 6`` days (6 for n=3)."""
    return 4 * num_agents - 6


# Colours (RGB in [0, 1]) for rendering.
BACKGROUND = (0.96, 0.96, 0.96)
ROOM_COLOUR = (0.80, 0.88, 1.00)
BULB_ON = (1.00, 0.85, 0.10)
BULB_OFF = (0.30, 0.30, 0.30)
VISITED_COLOUR = (0.30, 0.70, 0.35)
NOT_VISITED_COLOUR = (0.75, 0.75, 0.75)
DAY_COLOUR = (0.35, 0.35, 0.85)
