"""State of a CAMAR episode (``N`` agents, ``L`` obstacle circles)."""

from __future__ import annotations

import jax
from flax import struct

__all__ = ["State"]


@struct.dataclass
class State:
    pos: jax.Array  # (N, 2) float32 agent positions
    vel: jax.Array  # (N, 2) float32 agent velocities
    angle: jax.Array  # (N,) float32 headings (differential drive; 0 for holonomic agents)
    goal_pos: jax.Array  # (N, 2) float32 goals
    agent_rad: jax.Array  # (N,) float32 agent radii
    goal_rad: jax.Array  # (N,) float32 goal radii
    landmark_pos: jax.Array  # (L, 2) float32 obstacle circle centres
    map_id: jax.Array  # () int32 fixed layout in use (0 for drawn layouts)
    table: jax.Array  # (T, K) int32 bucket table of a drawn layout ((0, K) for fixed layouts)
    free_pos: jax.Array  # (F, 2) float32 free cells of a drawn layout (lifelong goals)
    goal_keys: jax.Array  # (N, 2) uint32 per-agent PRNG keys for lifelong goals
    step: jax.Array  # () int32 steps taken in this episode
    on_goal: jax.Array  # (N,) bool agent within its goal radius
    is_collision: jax.Array  # (N,) bool agent touched something during the last step
    arrival_step: jax.Array  # (N,) int32 step the agent first reached its goal (-1: not yet)
    num_collisions: jax.Array  # (N,) int32 steps with a collision so far
    path: jax.Array  # (N, P, 2) float32 planned waypoints (path_obs; P = 0 without it)
    path_found: jax.Array  # (N,) bool the planner joined the start to its tree
    needs_plan: jax.Array  # (N,) bool a path is to be planned (new episode or new goal)
