"""RobotWarehouse against jumanji 1.1.2 (the original): the same generator key gives the
same instance, and the same joint actions give, at every step, the same per-agent
observations (our flat vector against Jumanji's ``agents_view`` row and ``step_count /
time_limit``),
action masks, rewards, episode ends (terminated / truncated) and states (grids, robots,
request queue and PRNG key, so new requests are drawn alike).

Both envs run many episodes back to back: ours through the public ``step`` (automatic
reset, time limit), Jumanji's reset with the key ours resets with whenever its episode
ends; each configuration is one ``jit(vmap(scan))``. Actions are random: mostly among
each robot's legal actions with *forward* and *toggle load* favoured, sometimes any of the
five (a masked *forward* is played as a no-op by both). Random robots bump into each
other often, so the collision step's overwritten floor and its observations are compared
hundreds of times. Two configurations:

- RobotWarehouse-v0's instance (4 robots, 20 x 10, 3 x 3 views), a 60-step limit.
- Delivery-heavy starts (a user generator, its states converted into Jumanji's) on an
  8 x 10 floor with 20 shelves, 18 requested, 5 robots with one-cell views
  (``sensor_range=0``, where the collision step's writes overlap a robot's own features)
  and a 12-step limit: robot 0 stands on the first goal with a requested shelf and robot
  1 on the second with an unrequested one, both facing the wall below, so the first step
  delivers, and half the time the replacement drawn is robot 1's shelf, delivered in the
  same step; deliveries go on while they stay.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as fast_jit

from jaxmarl.environments.jumanji.robot_warehouse import (
    REQUIRED_ATTRIBUTES,
    RandomGenerator,
    RobotWarehouse,
    State,
)

jumanji = pytest.importorskip("jumanji", reason="the jumanji 1.1.2 oracle is in the test extra")
from jumanji.environments.routing.robot_warehouse import utils as their_utils  # noqa: E402
from jumanji.environments.routing.robot_warehouse.env import RobotWarehouse as TheirWarehouse  # noqa: E402
from jumanji.environments.routing.robot_warehouse.generator import (  # noqa: E402
    RandomGenerator as TheirGenerator,
)
from jumanji.environments.routing.robot_warehouse.types import Agent, Position, Shelf  # noqa: E402
from jumanji.environments.routing.robot_warehouse.types import State as TheirState  # noqa: E402

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_robot_warehouse_oracle")]

NUM_SEEDS = 64


def converter(env: RobotWarehouse):
    """``to_jumanji(state)``: Jumanji's state for one of ``env``'s (shelf positions read off
    the shelf grid)."""
    width = env.grid_size[1]
    ids = jnp.arange(1, env.num_shelves + 1)

    def to_jumanji(state: State) -> TheirState:
        flat = state.shelf_grid.reshape(-1)
        cell = jnp.argmax(flat[None, :] == ids[:, None], axis=1)
        requested = jnp.zeros(env.num_shelves, jnp.float32).at[state.request_queue].set(1.0)
        agents = Agent(
            position=Position(x=state.agent_pos[:, 0], y=state.agent_pos[:, 1]),
            direction=state.agent_dir,
            is_carrying=state.agent_carrying.astype(jnp.int32),
        )
        shelves = Shelf(position=Position(x=cell // width, y=cell % width), is_requested=requested)
        grid = jnp.stack([state.shelf_grid, state.agent_grid])
        return TheirState(
            grid=grid,
            agents=agents,
            shelves=shelves,
            request_queue=state.request_queue,
            step_count=state.step,
            action_mask=their_utils.compute_action_mask(grid, agents),
            key=state.key,
        )

    return to_jumanji


def from_jumanji(theirs: TheirState) -> dict[str, jax.Array]:
    """Our state's fields from Jumanji's."""
    return {
        "agent_pos": jnp.stack([theirs.agents.position.x, theirs.agents.position.y], axis=-1),
        "agent_dir": theirs.agents.direction,
        "agent_carrying": theirs.agents.is_carrying > 0,
        "agent_grid": theirs.grid[1],
        "shelf_grid": theirs.grid[0],
        "request_queue": theirs.request_queue,
        "key": theirs.key,
        "step": theirs.step_count,
    }


def state_mismatch(ours: State, theirs: TheirState) -> jax.Array:
    """Whether any field differs, bool ``()``."""
    return jnp.any(
        jnp.stack([jnp.any(getattr(ours, name) != value) for name, value in from_jumanji(theirs).items()])
    )


class GoalStart:
    """Delivery-heavy starts (see the module docstring), a user generator."""

    def __init__(self, **kwargs) -> None:
        self.random = RandomGenerator(**kwargs)
        for name in REQUIRED_ATTRIBUTES:
            setattr(self, name, getattr(self.random, name))

    def __call__(self, key: jax.Array) -> State:
        state = self.random(key)
        height, width = self.grid_size
        goals = jnp.asarray(self.goals)
        requested = jnp.zeros(self.num_shelves, bool).at[state.request_queue].set(True)
        loads = jnp.stack([state.request_queue[0], jnp.argmin(requested)])  # requested, then not
        # robots 2.. on distinct cells off the goals
        goal_cells = set((self.goals[:, 0] * width + self.goals[:, 1]).tolist())
        free_cells = jnp.asarray([c for c in range(height * width) if c not in goal_cells])
        cells = jax.random.choice(
            jax.random.fold_in(key, 1), free_cells, (self.num_agents - 2,), replace=False
        )
        pos = jnp.concatenate([goals, jnp.stack([cells // width, cells % width], axis=1)]).astype(jnp.int32)
        agent_grid = (
            jnp.zeros(self.grid_size, jnp.int32).at[pos[:, 0], pos[:, 1]].set(jnp.arange(1, len(pos) + 1))
        )
        flat = state.shelf_grid.reshape(-1)
        homes = jnp.argmax(flat[None, :] == (loads + 1)[:, None], axis=1)
        flat = flat.at[homes].set(0).at[goals[:, 0] * width + goals[:, 1]].set(loads + 1)
        return state.replace(
            agent_pos=pos,
            agent_dir=state.agent_dir.at[:2].set(2),  # facing down, into the wall
            agent_carrying=state.agent_carrying.at[:2].set(True),
            agent_grid=agent_grid,
            shelf_grid=flat.reshape(self.grid_size),
        )


def joint_action(key: jax.Array, mask: jax.Array) -> jax.Array:
    """Random actions (n,): legal ones with forward and toggle favoured, or any of the five."""
    k_any, k_legal, k_kind = jax.random.split(key, 3)
    logits = jnp.where(mask, 0.0, -jnp.inf) + jnp.array([0.0, 1.0, 0.0, 0.0, 1.0])
    legal = jax.random.categorical(k_legal, logits, axis=-1)
    anything = jax.random.randint(k_any, mask.shape[:1], 0, 5)
    return jnp.where(jax.random.bernoulli(k_kind, 0.8), legal, anything).astype(jnp.int32)


def compare(ours: RobotWarehouse, theirs: TheirWarehouse, steps: int, jumanji_start=None) -> dict:
    """Play NUM_SEEDS runs of ``steps`` steps of both envs side by side; return, per seed and
    step, which quantities differed, and what happened. ``jumanji_start(key)``: Jumanji's
    state for our generator's ``key`` (default: Jumanji's own generator, what its
    ``reset`` calls)."""
    agents = ours.agents
    n = len(agents)
    start = jumanji_start or theirs._generator

    def flat(view, step_count):
        """Jumanji's observation as ours lays it out: each agent's row, then step_count / time_limit."""
        time = step_count.astype(jnp.float32) / theirs.time_limit
        return jnp.concatenate([view.astype(jnp.float32), jnp.broadcast_to(time, (n, 1))], axis=1)

    def stacked(per_agent):
        return jnp.stack([per_agent[a] for a in agents])

    def run(key):
        k_reset, k_steps = jax.random.split(key)
        obs, state = ours.reset(k_reset)
        j_state = start(k_reset)
        j_view = theirs._make_observations(j_state.grid, j_state.agents, j_state.shelves)
        first = state_mismatch(state, j_state) | jnp.any(stacked(obs) != flat(j_view, j_state.step_count))

        def body(carry, key):
            state, j_state = carry
            k_act, k_step = jax.random.split(key)
            act = joint_action(k_act, j_state.action_mask)
            obs, new_state, reward, done, info = ours.step(
                k_step, state, {a: act[i] for i, a in enumerate(agents)}
            )
            j_next, j_ts = theirs.step(j_state, act)
            end = j_ts.last()
            collided = jnp.any(
                jax.vmap(lambda agent, i: their_utils.is_collision(j_next.grid, agent, i))(
                    j_next.agents, jnp.arange(n)
                )
            )
            final = info["final_state"]
            out = {
                "final_obs": jnp.any(
                    stacked(info["final_obs"])
                    != flat(j_ts.observation.agents_view, j_ts.observation.step_count)
                ),
                "mask": jnp.any(stacked(ours.get_avail_actions(final)) != j_ts.observation.action_mask),
                "reward": jnp.any(stacked(reward) != j_ts.reward),
                "done": done["__all__"] != end,
                "terminated": jnp.any(stacked(done) & ~stacked(info["truncated"]) != collided),
                "truncated": jnp.any(stacked(info["truncated"]) != (end & ~collided)),
                "state": state_mismatch(final, j_next),
                "collisions": collided,
                "truncations": end & ~collided,
                "deliveries": j_ts.reward,
            }
            # Jumanji restarts from the key our step resets with (our next observation is
            # get_obs of that state, the function compared on every step's final_obs).
            j_state = jax.tree.map(
                lambda r, s: jnp.where(end, r, s), start(jax.random.split(k_step)[1]), j_next
            )
            out["reset_state"] = state_mismatch(new_state, j_state)
            return (new_state, j_state), out

        _, out = jax.lax.scan(body, (state, j_state), jax.random.split(k_steps, steps))
        out["first"] = first
        return out

    keys = jax.random.split(jax.random.PRNGKey(steps), NUM_SEEDS)
    return {k: np.asarray(v) for k, v in fast_jit(jax.vmap(run))(keys).items()}


def check(out: dict) -> None:
    for name in ("first", "final_obs", "mask", "reward", "done", "terminated", "truncated", "state"):
        bad = np.argwhere(out[name])
        assert not len(bad), f"{name} differs first at (seed, step) {tuple(bad[0])}"
    assert not out["reset_state"].any(), "reset_state"


def test_default_instance_matches_jumanji():
    ours = RobotWarehouse(time_limit=60)
    theirs = TheirWarehouse(time_limit=60)
    out = compare(ours, theirs, steps=150)
    check(out)
    assert out["collisions"].sum() > 50 and out["truncations"].sum() > 50


def test_delivery_heavy_starts_with_one_cell_views_match_jumanji():
    kwargs = dict(
        shelf_rows=2, shelf_columns=3, column_height=2, num_agents=5, sensor_range=0, request_queue_size=18
    )
    generator = GoalStart(**kwargs)
    ours = RobotWarehouse(generator=generator, time_limit=12)
    theirs = TheirWarehouse(generator=TheirGenerator(**kwargs), time_limit=12)
    to_theirs = converter(ours)
    out = compare(ours, theirs, steps=100, jumanji_start=lambda key: to_theirs(generator(key)))
    check(out)
    deliveries = out["deliveries"]
    assert out["collisions"].sum() > 100 and out["truncations"].sum() > 200
    assert deliveries.sum() > 600 and (deliveries == 2).sum() > 150  # both goals in one step
