"""What a JaxNav step reports besides observations and rewards: JaxMARL 0.2.0's info
entries, the episode metrics, and the level statistics of ``JaxNav.get_env_metrics``."""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp

from jaxmarl.environments.jaxnav.maps import Map
from jaxmarl.environments.jaxnav.types import State

__all__ = ["episode_metrics", "jaxmarl_info", "level_metrics"]


def jaxmarl_info(
    agents: list[str],
    evaporating: bool,
    by_agent: bool,
    old: State,
    new: State,
    map_hit: jax.Array,
    robot_hit: jax.Array,
    time_up: jax.Array,
    reward: jax.Array,
    mean_own: jax.Array,
) -> dict[str, Any]:
    """JaxMARL's info entries for a step from ``old`` to ``new``, per robot (``by_agent``)
    or summed: ``NumC`` robots finished, ``GoalR`` goals reached, ``AgentC``/``MapC`` new
    robot and wall collisions (``robot_hit``/``map_hit``: this step's, bool ``(n,)``),
    ``TimeO`` time-outs, ``Return`` the rewards (summed: the mean own reward), and
    ``terminated``: done before the step."""
    n = len(agents)
    if evaporating:
        num_c = jnp.sum(new.move_term | new.goal_reached | time_up)
        time_o = time_up & ~old.done
    else:
        num_c = jnp.where(new.ep_done, n, 0)
        time_o = time_up & ~(new.move_term | new.goal_reached)
    goal_r = new.goal_reached * (1 - old.goal_reached)
    agent_c = robot_hit * (1 - old.move_term)
    map_c = map_hit * (1 - old.move_term)
    if not by_agent:
        return {
            "NumC": num_c,
            "GoalR": jnp.sum(goal_r),
            "AgentC": jnp.sum(agent_c),
            "MapC": jnp.sum(map_c),
            "TimeO": jnp.sum(time_o),
            "Return": mean_own,
            "terminated": {a: old.done[i] for i, a in enumerate(agents)},
        }
    return {
        "NumC": jnp.full((n,), new.ep_done, jnp.int32),
        "GoalR": goal_r,
        "AgentC": agent_c,
        "MapC": map_c,
        "TimeO": time_o,
        "Return": reward,
        "terminated": old.done,
    }


def episode_metrics(
    old: State, new: State, map_hit: jax.Array, robot_hit: jax.Array, timed_out: jax.Array
) -> dict[str, jax.Array]:
    """This step's shares of robots that reached their goal, collided, or were still
    under way (``timed_out``) when time ran out; summed over an episode, each robot
    counts once."""
    new_goal = new.goal_reached & ~old.goal_reached
    new_collision = (map_hit | robot_hit) & ~old.move_term
    return {
        "goal_rate": jnp.mean(new_goal.astype(jnp.float32)),
        "collision_rate": jnp.mean(new_collision.astype(jnp.float32)),
        "timeout_rate": jnp.mean(timed_out.astype(jnp.float32)),
    }


def level_metrics(world: Map, state: State) -> dict[str, jax.Array]:
    """Inner walls, and over the robots whose goal cell is reachable from their start
    cell the mean (and standard error) of the shortest 4-connected path between them, in
    cells, and the share of such robots (``passable``)."""
    n_walls = jnp.sum(state.map_data.astype(bool)[1:-1, 1:-1])
    passable, length = jax.vmap(world.dikstra_path, in_axes=(None, 0, 0))(
        state.map_data, state.pos, state.goal
    )
    count = jnp.sum(passable)
    stderr = jnp.where(count > 0, jnp.std(length, where=passable) / jnp.sqrt(count), 0.0)
    return {
        "n_walls": n_walls,
        "shortest_path_length_mean": jnp.mean(length, where=passable),
        "shortest_path_lengths_stderr": stderr,
        "passable": jnp.mean(passable),
    }
