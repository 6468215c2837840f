"""MultiCVRP against Jumanji 1.1.2 (the original): the same instance for the same key from
the uniform generator, for every size of the paper; then whole episodes of the same joint
actions (random legal ones, a fifth of them any node, legal or not, so clashes and
illegal choices are exercised) give the same per-agent observations, masks, rewards,
episode ends and vehicle states, step for step.

Instances of our own generators (the explosion generator with manual settings; with
``JAXMARL_FULL_ORACLES=1`` also cluster and linear compression, and more sizes and seeds)
are converted into Jumanji's state and replayed the same way. Each configuration runs
both environments in one ``jit(vmap(scan))``; the reduced set keeps the test under half
a minute of CPU (compilation is most of it).
"""

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit
from settings import FULL_ORACLES, oracle_count

from jaxmarl.environments.jumanji.multi_cvrp import (
    ClusterGenerator,
    ExplosionGenerator,
    LinearCompressionGenerator,
    MultiCVRP,
    UniformRandomGenerator,
)
from jaxmarl.environments.jumanji.multi_cvrp.constants import PAPER_SETTINGS

pytest.importorskip("jumanji")
from jumanji.environments.routing.multi_cvrp import MultiCVRP as TheirMultiCVRP
from jumanji.environments.routing.multi_cvrp.generator import Generator as TheirGenerator
from jumanji.environments.routing.multi_cvrp.generator import (
    UniformRandomGenerator as TheirUniform,
)
from jumanji.environments.routing.multi_cvrp.reward import DenseReward as TheirDense
from jumanji.environments.routing.multi_cvrp.reward import SparseReward as TheirSparse
from jumanji.environments.routing.multi_cvrp.types import (
    Node,
    PenalityCoeff,
    StateVehicle,
    TimeWindow,
)
from jumanji.environments.routing.multi_cvrp.types import State as TheirState
from jumanji.environments.routing.multi_cvrp.utils import create_action_mask

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jumanji_multi_cvrp_oracle")]

TOL = 1e-6
ANY_NODE_RATE = 0.2  # share of actions drawn among all nodes instead of the legal ones
# Each episode also sends vehicles home at its own random rate in [0, 1), so some time out.


class FixedSettings(TheirGenerator):
    """A Jumanji generator carrying our generator's settings (Jumanji's env reads them);
    instances come from ours, converted."""

    def __init__(self, ours):
        self._time_window_length = ours.time_window_length  # Jumanji's manual mode forgets it
        super().__init__(
            ours.num_customers,
            ours.num_vehicles,
            manual_settings=True,
            map_max=ours.map_max,
            max_capacity=ours.max_capacity,
            max_start_window=ours.max_start_window,
            early_coef_rand=ours.early_coef_rand,
            late_coef_rand=ours.late_coef_rand,
            customer_demand_max=ours.customer_demand_max,
        )

    def __call__(self, key):
        raise NotImplementedError


def to_jumanji(state, num_customers):
    """Our state as Jumanji's."""
    i16 = jnp.int16
    return TheirState(
        nodes=Node(coordinates=state.coordinates, demands=state.demands.astype(i16)),
        windows=TimeWindow(start=state.window_start, end=state.window_end),
        coeffs=PenalityCoeff(early=state.early_coefs, late=state.late_coefs),
        vehicles=StateVehicle(
            local_times=state.local_times,
            capacities=state.capacities.astype(i16),
            positions=state.positions.astype(i16),
            distances=state.distances,
            time_penalties=state.time_penalties,
        ),
        order=state.routes[:, : 2 * num_customers].astype(i16),
        step_count=(state.step + 1).astype(i16),
        action_mask=create_action_mask(state.demands.astype(i16), state.capacities.astype(i16)),
        key=jnp.zeros((2,), jnp.uint32),
    )


def their_agent_obs(obs):
    """Jumanji's observation cut into our per-agent vectors (our documented layout)."""
    f32 = jnp.float32
    veh = obs.vehicles
    own = jnp.concatenate(
        [veh.coordinates, veh.local_times[:, None], veh.capacities[:, None].astype(f32)], axis=1
    )
    shared = jnp.concatenate(
        [
            obs.nodes.coordinates.ravel(),
            obs.nodes.demands.astype(f32),
            obs.windows.start,
            obs.windows.end,
            obs.coeffs.early,
            obs.coeffs.late,
            veh.coordinates.ravel(),
            veh.local_times,
            veh.capacities.astype(f32),
        ]
    )
    return jnp.concatenate([own, jnp.broadcast_to(shared, (own.shape[0], shared.shape[0]))], axis=1)


def replay(ours, theirs, num_seeds, convert, seed=0):
    """Play ``num_seeds`` episodes in both; returns the per-step records (host arrays)."""
    C, V, N = ours.num_customers, ours.num_vehicles, ours.num_nodes

    def episode(key):
        reset_key, run_key, rate_key = jax.random.split(key, 3)
        depot_rate = jax.random.uniform(rate_key, ())
        _, o_state = ours.reset(reset_key)
        t_state = to_jumanji(o_state, C) if convert else theirs.reset(reset_key)[0]
        first = o_state
        start = {
            "o_coords": o_state.coordinates,
            "t_coords": t_state.nodes.coordinates,
            "o_demands": o_state.demands,
            "t_demands": t_state.nodes.demands.astype(jnp.int32),
        }

        def body(carry, key):
            o_state, t_state, over = carry
            pick_key, legal_key, any_key, home_key, step_key = jax.random.split(key, 5)
            mask = t_state.action_mask
            legal = jax.random.categorical(legal_key, jnp.where(mask, 0.0, -jnp.inf), axis=-1)
            anything = jax.random.randint(any_key, (V,), 0, N)
            act = jnp.where(jax.random.bernoulli(pick_key, ANY_NODE_RATE, (V,)), anything, legal)
            act = jnp.where(jax.random.bernoulli(home_key, depot_rate, (V,)), 0, act)
            act = act.astype(jnp.int32)
            t_next, ts = theirs.step(t_state, act.astype(jnp.int16))
            acts = {a: act[i] for i, a in enumerate(ours.agents)}
            # reset_state: restart from the first state after the end (ignored here) instead of
            # sampling a new instance in every step, which would double the compilation time.
            _, o_next, rew, done, info = ours.step(step_key, o_state, acts, reset_state=first)
            fs = info["final_state"]
            served = (t_next.nodes.demands.sum() == 0) & jnp.all(t_next.vehicles.positions == 0)
            wanted = t_state.nodes.demands[act]
            valid = (act > 0) & (wanted > 0) & (t_state.vehicles.capacities >= wanted)
            clash = jnp.any(
                (act[:, None] == act[None, :]) & valid[:, None] & valid[None, :] & ~jnp.eye(V, dtype=bool)
            )
            rec = {
                "active": ~over,
                "o_obs": jnp.stack([info["final_obs"][a] for a in ours.agents]),
                "t_obs": their_agent_obs(ts.observation),
                "o_mask": jnp.stack([ours.get_avail_actions(fs)[a] for a in ours.agents]),
                "t_mask": ts.observation.action_mask,
                "o_reward": jnp.stack([rew[a] for a in ours.agents]),
                "t_reward": jnp.broadcast_to(ts.reward, (V,)),
                "o_done": done["__all__"],
                "t_done": ts.last(),
                "o_truncated": info["truncated"]["agent_0"],
                "limit": ts.last() & ~served,  # Jumanji's episode ended by its step limit
                "o_positions": fs.positions,
                "t_positions": t_next.vehicles.positions.astype(jnp.int32),
                "o_capacities": fs.capacities,
                "t_capacities": t_next.vehicles.capacities.astype(jnp.int32),
                "o_distances": fs.distances,
                "t_distances": t_next.vehicles.distances,
                "o_penalties": fs.time_penalties,
                "t_penalties": t_next.vehicles.time_penalties,
                "o_routes": fs.routes[:, : 2 * C],
                "t_routes": t_next.order.astype(jnp.int32),
                "illegal": jnp.any((act > 0) & ~jnp.take_along_axis(mask, act[:, None], 1)[:, 0]),
                "clash": clash,
                "served": served & ~over,
            }
            return (o_next, t_next, over | done["__all__"]), rec

        carry = (o_state, t_state, jnp.zeros((), bool))
        _, recs = jax.lax.scan(body, carry, jax.random.split(run_key, 2 * C))
        return start, recs

    keys = jax.random.split(jax.random.PRNGKey(seed), num_seeds)
    start, recs = parity_jit(jax.vmap(episode))(keys)
    return jax.device_get(start), jax.device_get(recs)


def check(start, recs):
    np.testing.assert_array_equal(start["o_coords"], start["t_coords"])
    np.testing.assert_array_equal(start["o_demands"], start["t_demands"])
    active = recs["active"]  # (seeds, steps): up to and including each episode's last step
    assert active[:, 0].all()
    # The step limit is a termination here, as in Jumanji (its reward counts the rest).
    assert not recs["o_truncated"][active].any()
    for name in ("obs", "mask", "reward", "done", "positions", "capacities", "routes"):
        o, t = recs[f"o_{name}"][active], recs[f"t_{name}"][active]
        if o.dtype.kind == "f":
            np.testing.assert_allclose(o, t, rtol=TOL, atol=TOL, err_msg=name)
        else:
            np.testing.assert_array_equal(o, t, err_msg=name)
    for name in ("distances", "penalties"):
        np.testing.assert_allclose(recs[f"o_{name}"][active], recs[f"t_{name}"][active], rtol=TOL, atol=TOL)
    # Every episode ended within 2 * num_customers steps, in both.
    assert (recs["o_done"] & active).sum(axis=1).tolist() == [1] * active.shape[0]
    return {
        "served": int(recs["served"].sum()),
        "step_limit": int((recs["limit"] & active).sum()),
        "illegal": int((recs["illegal"] & active).sum()),
        "clash": int((recs["clash"] & active).sum()),
    }


def test_settings_are_the_papers_for_every_size():
    for (num_customers, num_vehicles), settings in PAPER_SETTINGS.items():
        theirs = TheirUniform(num_customers, num_vehicles)
        ours = UniformRandomGenerator(num_customers, num_vehicles)
        for name in settings:
            assert getattr(ours, name) == getattr(theirs, f"_{name}"), (num_customers, num_vehicles, name)
        assert ours.max_end_window == theirs._max_end_window
    with pytest.raises(ValueError):
        TheirUniform(20, 4)
    with pytest.raises(ValueError, match="defines no instance"):
        UniformRandomGenerator(20, 4)


def test_reset_gives_jumanjis_instance_with_fixed_coefficients():
    # 150 customers: the only size whose coefficient ranges are single values (the
    # replayed sizes below check the instance at their reset too).
    keys = jax.random.split(jax.random.PRNGKey(7), 64)

    def both(keys):
        o = jax.vmap(UniformRandomGenerator(150, 5))(keys)
        t = jax.vmap(TheirUniform(150, 5))(keys)
        return [
            (o.coordinates, t.nodes.coordinates),
            (o.demands, t.nodes.demands.astype(jnp.int32)),
            (o.window_start, t.windows.start),
            (o.window_end, t.windows.end),
            (o.early_coefs, t.coeffs.early),
            (o.late_coefs, t.coeffs.late),
            (o.positions, t.vehicles.positions.astype(jnp.int32)),
            (o.capacities, t.vehicles.capacities.astype(jnp.int32)),
            (o.local_times, t.vehicles.local_times),
            (o.routes[:, :, :300], t.order.astype(jnp.int32)),
            (o.step + 1, t.step_count.astype(jnp.int32)),
        ]

    pairs = jax.device_get(parity_jit(both)(keys))
    for i, (mine, theirs) in enumerate(pairs):
        np.testing.assert_array_equal(mine, theirs, err_msg=f"field {i}")
    assert (pairs[1][0] > 0).any() and (pairs[1][0][:, 0] == 0).all()


# (num_customers, num_vehicles, reward, seeds); JAXMARL_FULL_ORACLES=1 adds sizes and seeds.
UNIFORM_CASES = [(20, 2, "dense", oracle_count(128, 1024)), (6, 3, "sparse", oracle_count(256, 2048))]
if FULL_ORACLES:
    UNIFORM_CASES += [(50, 5, "dense", 256), (100, 3, "sparse", 64), (150, 5, "dense", 32)]


@pytest.mark.parametrize(("num_customers", "num_vehicles", "reward", "num_seeds"), UNIFORM_CASES)
def test_episodes_match_jumanji(num_customers, num_vehicles, reward, num_seeds):
    ours = MultiCVRP(num_customers=num_customers, num_vehicles=num_vehicles, reward_fn=reward)
    their_reward = (TheirDense if reward == "dense" else TheirSparse)(
        num_vehicles, num_customers, ours.map_max
    )
    theirs = TheirMultiCVRP(generator=TheirUniform(num_customers, num_vehicles), reward_fn=their_reward)
    seen = check(*replay(ours, theirs, num_seeds, convert=False, seed=num_customers))
    # The replay exercised every rule branch: services, time limits, illegal choices, clashes.
    assert all(count > 0 for count in seen.values()), seen


def explosion_manual():
    return ExplosionGenerator(
        12,
        4,
        center=(1.0, 4.0),
        radius=2.0,
        manual_settings=True,
        map_max=5,
        max_capacity=15,
        max_start_window=3.0,
        time_window_length=4.0,
        early_coef_rand=(0.5, 1.0),
        late_coef_rand=(1.0, 2.0),
        customer_demand_max=8,
    )


# (generator, reward, seeds): our generators' instances, converted into Jumanji's state.
CONVERTED_CASES = [(explosion_manual, "sparse", oracle_count(128, 1024))]
if FULL_ORACLES:
    CONVERTED_CASES += [
        (lambda: ClusterGenerator(20, 3), "dense", 256),
        (lambda: LinearCompressionGenerator(100, 2, compression=1.0), "dense", 64),
    ]


@pytest.mark.parametrize(("make_generator", "reward", "num_seeds"), CONVERTED_CASES)
def test_our_generators_replay_in_jumanji(make_generator, reward, num_seeds):
    generator = make_generator()
    ours = MultiCVRP(generator=generator, reward_fn=reward)
    C, V = generator.num_customers, generator.num_vehicles
    their_reward = (TheirDense if reward == "dense" else TheirSparse)(V, C, generator.map_max)
    theirs = TheirMultiCVRP(generator=FixedSettings(generator), reward_fn=their_reward)
    seen = check(*replay(ours, theirs, num_seeds, convert=True, seed=C))
    assert all(count > 0 for count in seen.values()), seen
