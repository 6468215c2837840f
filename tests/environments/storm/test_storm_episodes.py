"""Rule tests of STORM episodes: spawning, coin reshuffles, inner and outer episodes,
done and truncation flags, and the conformance kit on non-default configurations.

Rules (JaxMARL paper, appendix B.2; JaxMARL's ``storm_2p`` for episode structure):
- every inner episode starts with agents and coins on distinct cells, coins reshuffled
  (with fixed coin cells, only their kinds are), empty inventories, nobody frozen;
- after ``num_inner_steps`` steps the inner episode restarts without ending the episode;
  the episode ends after ``num_outer_steps`` inner episodes, as a time limit.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, jit
from storm_testutils import FOUR, INTERACT, KEY, MANY, STAY, TWO, actions, get, many_resets, rewards, state

import jaxmarl
from jaxmarl.environments.storm import STORM
from jaxmarl.testing import check_env

# JaxMARL's twelve coin cells on the 8x8 grid.
JAXMARL_COIN_CELLS = {
    (1, 1), (1, 2), (2, 1), (1, 6), (2, 6), (1, 5),
    (6, 1), (5, 1), (6, 2), (6, 6), (6, 5), (5, 6),
}  # fmt: skip


def cells_of(pos: np.ndarray) -> np.ndarray:
    return pos[..., 0] * 8 + pos[..., 1]


def within(counts: np.ndarray, n: int, p: float) -> bool:
    """Binomial counts within 4 standard deviations of n * p."""
    return bool(np.all(np.abs(counts - n * p) < 4 * np.sqrt(n * p * (1 - p))))


def test_reset_starts_every_agent_and_coin_on_its_own_cell():
    obs, s = many_resets(FOUR)
    pos, coins = np.asarray(s.pos), np.asarray(s.coins)
    assert all(len(set(row)) == 4 for row in cells_of(pos))
    assert np.all(coins.reshape(MANY, -1)[np.arange(MANY)[:, None], cells_of(pos)] == 0)
    assert np.all((coins == 1).sum((1, 2)) == 6) and np.all((coins == 2).sum((1, 2)) == 6)
    np.testing.assert_array_equal(s.coins, s.coin_layout)
    assert not np.any(s.inventory) and not np.any(s.freeze) and not np.any(s.beam)
    assert np.all(np.asarray(s.partner) == -1) and np.all(np.asarray(s.step) == 0)
    assert obs["agent_3"].shape == (MANY, 356)


def test_fixed_coin_cells_are_jaxmarls_with_shuffled_kinds():
    _, s = many_resets(TWO)
    coins = np.asarray(s.coins)
    for layout in coins[:50]:
        assert {tuple(c) for c in np.argwhere(layout > 0)} == JAXMARL_COIN_CELLS
    # Each spawn cell holds a cooperate coin half the time; layouts differ between episodes.
    coop = np.array([(coins[:, r, c] == 1).sum() for r, c in sorted(JAXMARL_COIN_CELLS)])
    assert within(coop, MANY, 0.5), coop
    # C(12, 6) = 924 layouts: MANY draws show 924 * (1 - (1 - 1/924) ** MANY) = 818 on average.
    assert len({layout.tobytes() for layout in coins}) > 760
    # Agents never start on a coin cell, and start uniformly on the 52 others.
    counts = np.bincount(cells_of(np.asarray(s.pos)).ravel(), minlength=64)
    spawn = [r * 8 + c for r, c in JAXMARL_COIN_CELLS]
    assert counts[spawn].sum() == 0
    others = np.delete(counts, spawn)
    assert within(others, 2 * MANY, 1 / 52), others
    facing = np.bincount(np.asarray(s.dir).ravel(), minlength=4)
    assert within(facing, 2 * MANY, 1 / 4), facing


def test_coin_cells_anywhere_without_fixed_locations():
    env = get("storm_2p", fixed_coin_location=False)
    _, s = many_resets(env)
    coins = np.asarray(s.coins).reshape(MANY, 64)
    # 12 of 64 cells hold a coin, 6 of each kind, uniformly.
    assert within((coins > 0).sum(0), MANY, 12 / 64)
    assert within((coins == 1).sum(0), MANY, 6 / 64)
    agents = np.bincount(cells_of(np.asarray(s.pos)).ravel(), minlength=64)
    assert within(agents, MANY, 2 / 64)


def test_inner_episodes_restart_and_the_episode_ends_as_a_truncation():
    env = get("storm_2p", num_inner_steps=3, num_outer_steps=2)
    assert env.env.max_steps == 6
    picture = """
    ........
    ........
    ........
    ...1....
    ...0....
    ........
    ........
    ........
    """
    s = state(env.env, picture, "NE", inventory=[[1, 0], [0, 1]])
    inner, done_all, truncated, steps = [], [], [], []
    for t in range(6):
        act = INTERACT if t == 2 else STAY  # an interaction on the last step of the inner episode
        obs, s, reward, done, info = env.step(jax.random.PRNGKey(t), s, actions(env.env, act))
        inner.append(bool(info["inner_episode_done"][0]))
        done_all.append(bool(done["__all__"]))
        truncated.append(bool(info["truncated"]["agent_0"]) and bool(info["truncated"]["agent_1"]))
        assert bool(done["agent_0"]) == bool(done["agent_1"]) == done_all[-1]
        steps.append(int(s.step))
        if t == 2:
            # The reward of that step is paid; then a fresh inner episode starts.
            assert rewards(reward, env.env).tolist() == [0.0, 5.0]
            assert not np.any(s.inventory) and not np.any(s.freeze)
            assert np.all(np.asarray(s.partner) == -1)
            np.testing.assert_array_equal(np.asarray(obs["agent_0"]), np.asarray(env.get_obs(s)["agent_0"]))
    assert inner == [False, False, True, False, False, True]
    assert done_all == [False] * 5 + [True]
    assert truncated == [False] * 5 + [True]
    assert steps == [1, 2, 3, 4, 5, 0]  # auto-reset after the last step


def test_coins_are_reshuffled_when_an_inner_episode_restarts():
    env = get("storm_2p", num_inner_steps=1, num_outer_steps=2, fixed_coin_location=False)
    _, s = many_resets(env)
    step = jit(jax.vmap(env.env.step_env))
    acts = {a: jnp.full((MANY,), STAY) for a in env.env.agents}
    _, s2, *_ = step(jax.random.split(KEY, MANY), s, acts)
    assert np.all(np.asarray(s2.step) == 1)
    changed = np.any(np.asarray(s2.coin_layout) != np.asarray(s.coin_layout), axis=(1, 2))
    assert changed.mean() > 0.99
    np.testing.assert_array_equal(s2.coins, s2.coin_layout)


def test_last_step_of_the_default_episode():
    s = state(TWO.env, "\n".join(["0......1"] + ["........"] * 7), "SS", step=151)
    obs, s2, _, done, info = TWO.step(KEY, s, actions(TWO.env))
    assert bool(done["__all__"]) and bool(done["agent_0"]) and bool(done["agent_1"])
    assert bool(info["truncated"]["agent_0"]) and bool(info["truncated"]["agent_1"])
    assert int(s2.step) == 0  # automatically reset
    # final_obs is the view before the reset: agent_0 in the top-left corner facing south
    # has the grid's west edge on its right, so the two right columns of its view are wall.
    final, _ = TWO.env.split_obs(np.asarray(info["final_obs"]["agent_0"]))
    np.testing.assert_array_equal(final[..., 4], np.tile([0, 0, 0, 1, 1], (5, 1)))
    np.testing.assert_array_equal(obs["agent_0"], TWO.get_obs(s2)["agent_0"])


def test_registered_ids_build_the_same_two_player_game():
    for env_id in ("storm", "storm_2p", "storm_np"):
        env = jaxmarl.make(env_id)
        assert isinstance(env, STORM) and env.agents == ["agent_0", "agent_1"]
        assert env.max_steps == 152 and env.action_space("agent_0").n == 5
    env = jaxmarl.make("storm_np", num_agents=6)
    assert env.agents == [f"agent_{i}" for i in range(6)]


def test_every_action_is_always_available():
    s = state(TWO.env, "\n".join(["0......1"] + ["........"] * 7), "SS", freeze=[3, 0])
    masks = jit(TWO.env.get_avail_actions)(s)
    for a in TWO.env.agents:
        np.testing.assert_array_equal(masks[a], np.ones(5, bool))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_agents": 4},
        {
            "num_agents": 5,
            "grid_size": 5,
            "num_coins": 2,
            "obs_size": 3,
            "freeze_penalty": 0,
            "fixed_coin_location": False,
            "num_inner_steps": 20,
            "num_outer_steps": 3,
            "payoff": "chicken",
            "expected_payoff": True,
        },
    ],
)
def test_configurations_pass_check_env(kwargs):
    check_env(jaxmarl.make("storm_np", **kwargs), num_envs=4, compiler_options=COMPILER_OPTIONS)
