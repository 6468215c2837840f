"""JaxNav's level generators draw valid levels: walls as specified, robots placed clear of
walls and of each other, goals clear and, where JaxMARL guarantees it (``valid_path_check``,
Barn), reachable. 256 levels per map type, in one compiled call each."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit

from jaxmarl.environments.jaxnav import JaxNav
from jaxmarl.environments.jaxnav.maps.barn import inflate
from jaxmarl.environments.jaxnav.maps.graph import path_length

LEVELS = 256
SINGLE = ["1 1 1 1 1 1 1 1", "1 0 0 0 0 0 0 1", "1 0 1 1 1 1 0 1", "1 0 0 0 0 1 0 1"]
SINGLE += ["1 1 1 1 0 1 0 1", "1 0 0 0 0 1 0 1", "1 0 1 1 1 1 0 1", "1 1 1 1 1 1 1 1"]


def draw(env: JaxNav, levels: int = LEVELS) -> dict:
    """``LEVELS`` start states, and per robot whether its start footprint touches a wall,
    its goal's 0.3 m disc does, and its goal cell is reachable from its start cell."""
    m = env.map_obj

    def one(key):
        state = env.sample_test_case(key)
        walls = jax.vmap(m.check_agent_map_collision, in_axes=(0, 0, None))(
            state.pos, state.theta, state.map_data
        )
        goal_walls = jax.vmap(lambda g: m.check_circle_map_collision(g, state.map_data, 0.3))(state.goal)
        reachable, _ = jax.vmap(m.dikstra_path, in_axes=(None, 0, 0))(state.map_data, state.pos, state.goal)
        return state, walls, goal_walls, reachable

    state, walls, goal_walls, reachable = jax.device_get(
        jit(jax.vmap(one))(jax.random.split(jax.random.PRNGKey(7), levels))
    )
    return {"state": state, "walls": walls, "goal_walls": goal_walls, "reachable": reachable}


def pairwise(x: np.ndarray) -> np.ndarray:
    """Distances between robots, ``(levels, n, n)`` with the diagonal at infinity."""
    d = np.linalg.norm(x[:, :, None] - x[:, None], axis=-1)
    return d + np.where(np.eye(x.shape[1], dtype=bool), np.inf, 0.0)


def test_random_walls_and_random_placement():
    """Default map: border walls, fewer than floor(81 * 0.3) = 24 inner walls (uniform
    count), starts and goals clear of walls, 0.9 m apart, inside the interior."""
    env = JaxNav(num_agents=3)
    out = draw(env)
    state = out["state"]
    grids = state.map_data
    assert (grids[:, 0] == 1).all() and (grids[:, -1] == 1).all() and (grids[:, :, 0] == 1).all()
    inner = grids[:, 1:-1, 1:-1].sum((1, 2))
    assert inner.max() <= 23 and inner.min() == 0 and abs(inner.mean() - 11.5) < 1.5
    assert not out["walls"].any() and not out["goal_walls"].any()
    assert (pairwise(state.pos) > 0.9).all() and (pairwise(state.goal) > 0.9).all()
    dist = np.linalg.norm(state.pos - state.goal, axis=-1)
    assert (dist > 0.6).all() and (dist <= 9.7 + 1e-5).all()
    for xy in (state.pos, state.goal):
        assert (xy >= 1.3 - 1e-6).all() and (xy <= 9.7 + 1e-6).all()
    assert (np.abs(state.theta) <= np.pi).all() and state.theta.std() > 1.6  # uniform: 2 pi / sqrt(12)
    np.testing.assert_array_equal(state.rew_lambda, 0.5)


@pytest.mark.parametrize("sampler", ["random", "grid"])
def test_valid_path_check_gives_reachable_goals(sampler):
    params = {"map_size": (9, 9), "fill": 0.5, "sample_test_case_type": sampler}
    env = JaxNav(num_agents=3, map_id="Grid-Rand", map_params={**params, "valid_path_check": True})
    out = draw(env, levels=64)  # redrawing until connected is slow on such crowded maps
    assert out["reachable"].all() and not out["walls"].any() and not out["goal_walls"].any()
    unchecked = draw(JaxNav(num_agents=3, map_id="Grid-Rand", map_params=params), levels=64)
    assert not unchecked["reachable"].all()  # without the check some goals are walled off
    if sampler == "grid":
        state = out["state"]
        np.testing.assert_array_equal(state.pos % 1, 0.5)  # cell centres
        np.testing.assert_array_equal(state.goal % 1, 0.5)
        cells = np.floor(state.pos).astype(int)
        assert (pairwise(state.pos) >= 1).all() and (pairwise(state.goal) >= 1).all()
        assert (np.linalg.norm(state.pos - state.goal, axis=-1) >= 1).all()
        rows, cols = cells[..., 1], cells[..., 0]
        assert (np.take_along_axis(state.map_data.reshape(64, -1), rows * 9 + cols, 1) == 0).all()


def test_barn_levels():
    """One Jackal robot in a free cell of the inflated map, facing an axis direction, its
    goal reachable on the inflated map and more than 19 cells away in x or y."""
    env = JaxNav(num_agents=1, map_id="Grid-Rand-Barn", map_params={"map_size": (30, 30), "fill": 0.4})
    out = draw(env)
    state = out["state"]
    assert not out["walls"].any()
    quarter = state.theta / (np.pi / 2)
    np.testing.assert_allclose(quarter, np.round(quarter), atol=1e-6)
    assert set(np.round(quarter).astype(int).ravel()) == {0, 1, 2, 3}
    cells = np.round(state.pos / 0.15).astype(int)[:, 0]
    goals = np.round(state.goal / 0.15).astype(int)[:, 0]
    assert (np.abs(cells - goals).max(-1) > 19).all()

    def reachable(grid, a, b):
        return path_length(inflate(grid), a, b)[0]

    ok = jit(jax.vmap(reachable))(jnp.asarray(state.map_data), jnp.asarray(cells), jnp.asarray(goals))
    assert np.asarray(ok).all()
    inflated = np.asarray(jit(jax.vmap(inflate))(jnp.asarray(state.map_data)))
    assert not inflated[np.arange(LEVELS), cells[:, 1], cells[:, 0]].any()


def test_single_map_levels():
    env = JaxNav(
        num_agents=2,
        map_id="Grid-Rand-Poly-Single",
        map_params={"map_data": SINGLE, "valid_path_check": True},
    )
    out = draw(env, levels=64)
    grid = np.array([[int(v) for v in row.split()] for row in SINGLE])
    assert (out["state"].map_data == grid).all()
    assert out["reachable"].all() and not out["walls"].any() and not out["goal_walls"].any()
