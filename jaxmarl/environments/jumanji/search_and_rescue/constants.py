"""SearchAndRescue's defaults (Jumanji 1.1.2's ``SearchAndRescue-v0``) and colours."""

from __future__ import annotations

# Searcher motion (Jumanji's constructor defaults).
TARGET_CONTACT_RANGE = 0.02  # a searcher finds a target within this range (and its view cone)
SEARCHER_MAX_ROTATE = 0.25  # largest turn per step, a fraction of pi
SEARCHER_MAX_ACCELERATE = 0.005  # largest change of speed per step
SEARCHER_MIN_SPEED = 0.005
SEARCHER_MAX_SPEED = 0.02
TIME_LIMIT = 400

# The default generator: RandomGenerator(num_targets=40, num_searchers=2) on a unit torus.
NUM_SEARCHERS = 2
NUM_TARGETS = 40
ENV_SIZE = 1.0

# The default observation (Jumanji's AgentAndTargetObservationFn as the env builds it).
NUM_VISION = 128  # rays per view
SEARCHER_VISION_RANGE = 0.4
TARGET_VISION_RANGE = 0.1
VIEW_ANGLE = 0.4  # half-width of the view cone, a fraction of pi

# View channels of AgentAndTargetObservationFn.
NUM_CHANNELS = 3
SEARCHER_CHANNEL = 0  # other searchers
FOUND_CHANNEL = 1  # targets already found
UNFOUND_CHANNEL = 2  # targets still to find

# The default target dynamics (Jumanji's RandomWalk(acc_std=0.0001, vel_max=0.002)).
TARGET_ACC_STD = 0.0001
TARGET_VEL_MAX = 0.002

# Jumanji's SearchAndRescueViewer colours (RGB in [0, 1]) on matplotlib's white.
BACKGROUND = (1.0, 1.0, 1.0)
SEARCHER_COLOUR = (0x28 / 255, 0x2B / 255, 0x28 / 255)  # "#282B28", near black
TARGET_FOUND_COLOUR = (0xB3 / 255, 0xB6 / 255, 0xBC / 255)  # "#B3B6BC", light grey
TARGET_LOST_COLOUR = (0xE9 / 255, 0x84 / 255, 0x49 / 255)  # "#E98449", orange
