"""SMAX constants: unit types and their stats, action ids, timing, colours.

The unit table is JaxMARL's SMAX table (StarCraft II values as SMACv2 uses them, with
protoss shields folded into health; see ``docs/environments/smax.md`` for where it
departs from the game). Times are in game seconds; distances in map units.
"""

from __future__ import annotations

import numpy as np

# ----------------------------------------------------------------------------- units
UNIT_TYPE_NAMES: tuple[str, ...] = ("marine", "marauder", "stalker", "zealot", "zergling", "hydralisk")
UNIT_TYPE_SHORTHANDS: tuple[str, ...] = ("m", "M", "s", "Z", "z", "h")
UNIT_TYPE_RACES: tuple[str, ...] = ("terran", "terran", "protoss", "protoss", "zerg", "zerg")
NUM_UNIT_TYPES = len(UNIT_TYPE_NAMES)
MARINE, MARAUDER, STALKER, ZEALOT, ZERGLING, HYDRALISK = range(NUM_UNIT_TYPES)

# Per unit type, in UNIT_TYPE_NAMES order (float32 (6,) each).
SPEED = np.array([3.15, 2.25, 4.13, 3.15, 4.13, 3.15], np.float32)  # map units per second
DAMAGE = np.array([9.0, 10.0, 13.0, 8.0, 5.0, 12.0], np.float32)  # health per hit
ATTACK_RANGE = np.array([5.0, 6.0, 6.0, 2.0, 2.0, 5.0], np.float32)  # centre to centre
SIGHT_RANGE = np.array([9.0, 10.0, 10.0, 9.0, 8.0, 9.0], np.float32)
RADIUS = np.array([0.375, 0.5625, 0.625, 0.5, 0.375, 0.625], np.float32)
HEALTH = np.array([45.0, 125.0, 160.0, 150.0, 35.0, 80.0], np.float32)  # protoss: health + shields
COOLDOWN = np.array([0.61, 1.07, 1.87, 0.86, 0.5, 0.59], np.float32)  # seconds between hits

# --------------------------------------------------------------------------- actions
ACTION_TYPES: tuple[str, ...] = ("discrete", "continuous")
NORTH, EAST, SOUTH, WEST, STOP = range(5)
NUM_MOVE_ACTIONS = 5  # four moves and stop; attack actions follow, one per enemy
MOVE_NAMES: tuple[str, ...] = ("north", "east", "south", "west", "stop")
# Unit vectors of the actions (the attack actions and stop do not move the unit).
MOVE_VECTORS = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, -1.0], [-1.0, 0.0], [0.0, 0.0]], np.float32)
# Continuous actions: Box(0, 1, (4,)), entries in this order (JaxMARL's names).
CONTINUOUS_ACTION_DIMS: tuple[str, ...] = ("shoot_last_enemy", "do_shoot", "coordinate_1", "coordinate_2")
SHOOT_LAST, DO_SHOOT, RADIUS_DIM, ANGLE_DIM = range(4)

# ---------------------------------------------------------------------- observations
OBSERVATION_TYPES: tuple[str, ...] = ("unit_list", "conic")
NUM_SECTIONS = 32  # conic observation: angular sections around the unit
MAX_UNITS_PER_SECTION = 2  # units shown per section (the lowest indices)

# ----------------------------------------------------------------------------- world
MAP_WIDTH = 32.0
MAP_HEIGHT = 32.0
TICKS_PER_STEP = 8  # world ticks per environment step, as in SMAC
TICK_SECONDS = 1.0 / 16.0  # game seconds per tick
MAX_STEPS = 100
START_NOISE = 2.0  # half-width of the uniform noise around fixed start positions
SPAWN_MARGIN = 0.5  # generated start positions keep this far from the map's edges

# ---------------------------------------------------------------------------- colours
TEAM_COLOURS = np.array([[0.16, 0.38, 0.85], [0.85, 0.22, 0.18]], np.float32)  # allies blue, enemies red
# Per unit type, a tint mixed into the team colour (terran grey, protoss gold, zerg purple).
TYPE_TINTS = np.array(
    [
        [0.55, 0.55, 0.6],
        [0.35, 0.35, 0.4],
        [0.95, 0.8, 0.3],
        [0.8, 0.65, 0.2],
        [0.6, 0.3, 0.7],
        [0.45, 0.2, 0.55],
    ],
    np.float32,
)
BACKGROUND_COLOUR = (0.93, 0.91, 0.85)
HEALTH_BAR_COLOUR = np.array([0.1, 0.75, 0.2], np.float32)
HEALTH_BAR_BACK = np.array([0.25, 0.25, 0.25], np.float32)
ATTACK_LINE_COLOURS = np.array([[0.1, 0.3, 1.0], [1.0, 0.15, 0.1]], np.float32)
