"""Cleaner against Jumanji 1.1.2's ``Cleaner`` (the oracle): the same maze for the same
key, then whole episodes of the same joint actions (random legal moves, with a few
masked ones mixed in, which end Jumanji's episodes) giving the same per-agent
observations, masks, rewards, metrics and episode ends, auto-reset included.

Each configuration runs both environments side by side in one
``jit(vmap(lax.scan(...)))`` over many seeds. Every seed's first episode starts from
Jumanji's own ``reset``; later episodes start, on both sides, from our reset state
(converted), since the mazes themselves are compared key by key separately.

Grids are square in the episodes: on a non-square grid Jumanji's action mask compares
the row with ``num_cols`` and the column with ``num_rows``, so its cleaners can leave
the grid; ours keep to it (a documented deviation, pinned by the last test). Mazes are
compared on non-square grids too.
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import fast_compilation, parity_jit

from jaxmarl.environments.jumanji.cleaner import Cleaner, RandomGenerator, State

pytest.importorskip("jumanji")
from jumanji.environments.routing.cleaner import Cleaner as JumanjiCleaner
from jumanji.environments.routing.cleaner.constants import DIRTY
from jumanji.environments.routing.cleaner.generator import RandomGenerator as JumanjiRandomGenerator
from jumanji.environments.routing.cleaner.types import State as JumanjiState

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_cleaner_oracle")]


@pytest.fixture(autouse=True, scope="module")
def _fast_compilation():
    with fast_compilation():
        yield


ILLEGAL_RATE = 0.01  # share of agent-steps taking a uniformly random (possibly masked) action


def pair(num_rows, num_cols, num_agents, **kwargs):
    theirs = JumanjiCleaner(JumanjiRandomGenerator(num_rows, num_cols, num_agents), **kwargs)
    ours = Cleaner(num_rows=num_rows, num_cols=num_cols, num_agents=num_agents, **kwargs)
    return theirs, ours


def their_obs(obs, time_limit):
    """Jumanji's observation sliced into our per-agent vectors (A, obs_size), the step count
    scaled by the time limit."""
    time = obs.step_count.astype(jnp.float32) * np.float32(1 / time_limit)
    parts = [obs.grid.reshape(-1), obs.agents_locations.reshape(-1), time[None]]
    shared = jnp.concatenate([p.astype(jnp.float32) for p in parts])
    num_agents = obs.agents_locations.shape[0]
    return jnp.concatenate(
        [obs.agents_locations.astype(jnp.float32), jnp.broadcast_to(shared, (num_agents, shared.shape[0]))], 1
    )


def their_state(theirs, state, key):
    """Our state as Jumanji's (its reset is the same for the same key: checked at every
    episode's first reset and by test_same_maze_for_the_same_key)."""
    mask = theirs._compute_action_mask(state.grid, state.agents_locations)
    return JumanjiState(
        grid=state.grid,
        agents_locations=state.agents_locations,
        action_mask=mask,
        step_count=state.step,
        key=key,
    )


def stack(tree, agents):
    return jnp.stack([tree[a] for a in agents])


def replay(theirs, ours, num_seeds, num_steps, seed=0):
    """Run both for ``num_steps`` steps from ``num_seeds`` resets; return per-step checks
    and counts of how episodes ended."""
    agents = ours.agents

    def episode(key):
        k_reset, k_run = jax.random.split(key)
        t_state, t_ts = theirs.reset(k_reset)
        o_obs, o_state = ours.reset(k_reset)
        first = {
            "grid": jnp.array_equal(o_state.grid, t_state.grid),
            "obs": jnp.array_equal(stack(o_obs, agents), their_obs(t_ts.observation, ours.time_limit)),
            "mask": jnp.array_equal(stack(ours.get_avail_actions(o_state), agents), t_state.action_mask),
        }

        def body(carry, key):
            t_state, o_state = carry
            k_act, k_rand, k_pick, k_step, k_next = jax.random.split(key, 5)
            mask = t_state.action_mask
            legal = jax.random.categorical(k_act, jnp.where(mask, 0.0, -jnp.inf))
            anything = jax.random.randint(k_rand, legal.shape, 0, 4)
            action = jnp.where(jax.random.uniform(k_pick, legal.shape) < ILLEGAL_RATE, anything, legal)
            action = action.astype(jnp.int32)
            masked = ~mask[jnp.arange(action.shape[0]), action]

            t_state, t_ts = theirs.step(t_state, action)
            o_reset_obs, o_reset_state = ours.reset(k_next)
            t_reset_state = their_state(theirs, o_reset_state, t_state.key)
            o_obs, o_state, o_rew, o_done, o_info = ours.step(
                k_step, o_state, {a: action[i] for i, a in enumerate(agents)}, reset_state=o_reset_state
            )
            last = t_ts.last()
            all_clean = ~jnp.any(t_state.grid == DIRTY)
            rule_end = jnp.any(masked) | all_clean
            ends = {
                "episodes": last,
                "masked_move": last & jnp.any(masked),
                "all_clean": last & all_clean,
                "time_limit": last & ~rule_end,
            }
            checks = {
                "final_obs": jnp.array_equal(
                    stack(o_info["final_obs"], agents), their_obs(t_ts.observation, ours.time_limit)
                ),
                "reward": jnp.max(jnp.abs(stack(o_rew, agents) - t_ts.reward)) <= 1e-6,
                "done": (o_done["__all__"] == last) & jnp.all(stack(o_done, agents) == last),
                "truncated": jnp.all(stack(o_info["truncated"], agents) == (last & ~rule_end)),
                "illegal_move": jnp.array_equal(stack(o_info["illegal_move"], agents), masked),
                "ratio_dirty_tiles": jnp.abs(
                    o_info["metrics"]["ratio_dirty_tiles"] - t_ts.extras["ratio_dirty_tiles"]
                )
                <= 1e-6,
                "num_dirty_tiles": o_info["metrics"]["num_dirty_tiles"] == t_ts.extras["num_dirty_tiles"],
            }
            # Both restart from the same key when the episode is over.
            t_state = jax.tree.map(lambda r, s: jnp.where(last, r, s), t_reset_state, t_state)
            t_obs = jax.tree.map(
                lambda r, s: jnp.where(last, r, s),
                theirs._observation_from_state(t_reset_state),
                t_ts.observation,
            )
            checks["obs"] = jnp.array_equal(stack(o_obs, agents), their_obs(t_obs, ours.time_limit))
            checks["mask"] = jnp.array_equal(
                stack(ours.get_avail_actions(o_state), agents), t_state.action_mask
            )
            checks["state"] = jnp.array_equal(o_state.grid, t_state.grid) & jnp.array_equal(
                o_state.agents_locations, t_state.agents_locations
            )
            return (t_state, o_state), (checks, ends)

        _, (checks, ends) = jax.lax.scan(body, (t_state, o_state), jax.random.split(k_run, num_steps))
        return first, checks, ends

    keys = jax.random.split(jax.random.PRNGKey(seed), num_seeds)
    run = parity_jit(jax.vmap(episode))
    first, checks, ends = jax.device_get(run(keys))
    for name, ok in {**first, **checks}.items():
        bad = np.argwhere(~np.asarray(ok))
        assert bad.size == 0, f"{name} differs from Jumanji first at (seed, step) {tuple(bad[0])}"
    return {name: int(np.sum(v)) for name, v in ends.items()}


@pytest.mark.parametrize(
    ("num_rows", "num_cols", "num_agents", "kwargs", "num_steps"),
    [
        (10, 10, 3, {}, 200),  # Cleaner-v0's defaults (time limit 100)
        (5, 5, 4, {"time_limit": 40, "penalty_per_timestep": 0.1}, 100),  # mazes get cleaned
    ],
    ids=["default", "5x5_4_agents_options"],
)
def test_episodes_match_jumanji(num_rows, num_cols, num_agents, kwargs, num_steps):
    theirs, ours = pair(num_rows, num_cols, num_agents, **kwargs)
    ends = replay(theirs, ours, num_seeds=64, num_steps=num_steps)
    # Every way an episode can end happened (the small maze gets cleaned by 4 cleaners).
    assert ends["masked_move"] > 0 and ends["time_limit"] > 0, ends
    if num_agents == 4:
        assert ends["all_clean"] > 0, ends


# 6 x 11: non-square; 1 x 7: a corridor; 18 x 18: walls drawn as runs (generate_maze).
@pytest.mark.parametrize(("num_rows", "num_cols"), [(6, 11), (1, 7), (18, 18)])
def test_same_maze_for_the_same_key(num_rows, num_cols):
    keys = jax.random.split(jax.random.PRNGKey(num_rows * 31 + num_cols), 256)
    theirs = parity_jit(jax.vmap(JumanjiRandomGenerator(num_rows, num_cols, 2)))(keys)
    ours = parity_jit(jax.vmap(RandomGenerator(num_rows, num_cols, 2)))(keys)
    np.testing.assert_array_equal(ours.grid, theirs.grid)
    np.testing.assert_array_equal(ours.agents_locations, theirs.agents_locations)
    np.testing.assert_array_equal(ours.step, theirs.step_count)


def test_non_square_grids_keep_cleaners_inside_where_jumanji_does_not():
    # Jumanji's mask checks the column against num_rows and the row against num_cols:
    # on 5 x 9 its cleaners cannot enter columns 5..8 but can walk below row 4.
    theirs, ours = pair(5, 9, 1)
    grid = jnp.zeros((5, 9), jnp.int8)  # all dirty, no walls
    t_mask = theirs._compute_action_mask(grid, jnp.array([[4, 0], [0, 4]], jnp.int32))
    o_state = State(grid=grid, agents_locations=jnp.array([[4, 0]], jnp.int32), step=jnp.int32(0))
    assert bool(t_mask[0, 2])  # Jumanji: "down" from the bottom row leaves the grid
    assert not bool(ours.compute_action_mask(o_state)[0, 2])  # ours: masked
    assert not bool(t_mask[1, 1])  # Jumanji: "right" from column 4 of 9 is refused
    o_state = o_state.replace(agents_locations=jnp.array([[0, 4]], jnp.int32))
    assert bool(ours.compute_action_mask(o_state)[0, 1])  # ours: allowed
