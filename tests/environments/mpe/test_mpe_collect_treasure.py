"""Rule tests of ``collect_treasure``: pick-ups go treasure by treasure to the first free
collector touching each; collectors deliver to the deposit of their load's type, also
what they picked up in the same step; picked-up treasures are parked off the map and
respawn on the next step; rewards, observation layout, masses, rendering and metrics.

Hand-drawn worlds in a small configuration: collectors c0 c1 c2, deposits d0 d1 (types
0, 1), treasures t0 t1 t2. Radii: collector 0.05, deposit 0.075, treasure 0.025, so a
collector touches a treasure closer than 0.075, a deposit closer than 0.125, another
collector closer than 0.1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import jit
from mpe_testutils import KEY, close, discrete, get, state

import jaxmarl
from jaxmarl.environments.mpe import CollectTreasureMPE, TreasureState

SMALL = {"num_collectors": 3, "num_deposits": 2, "num_treasures": 3}
FNS = get("MPE_collect_treasure_v1", **SMALL)
ENV = FNS.env
PARKED = [-999.0, -999.0]


def world(pos, holding, types, alive=(True, True, True), vel=None) -> TreasureState:
    """Entities in order c0 c1 c2 d0 d1 t0 t1 t2."""
    base = state(ENV, pos, vel)
    return TreasureState(
        p_pos=base.p_pos,
        p_vel=base.p_vel,
        c=base.c,
        step=base.step,
        goal=base.goal,
        holding=jnp.asarray(holding, jnp.int32),
        treasure_type=jnp.asarray(types, jnp.int32),
        alive=jnp.asarray(alive),
        collected=jnp.int32(0),
        delivered=jnp.int32(0),
    )


def dist(a, b) -> float:
    return float(np.linalg.norm(np.asarray(a, np.float64) - np.asarray(b, np.float64)))


# Contested t0 and a busy collector:
#
#             d0 (0, 0.16)          c0 carries type 1: it touches t0 and d0 (wrong type)
#             c0 (0, 0.06)
#   c2 (-0.06, 0)  t0 (0,0)  c1 (0.06, 0)     c1 and c2 are free and both touch t0
#                                  t1 (0.5, 0.5)   t2 (0.8, 0.8)
#                                         d1 (0.8, -0.8)
CONTESTED = [[0, 0.06], [0.06, 0], [-0.06, 0], [0, 0.16], [0.8, -0.8], [0, 0], [0.5, 0.5], [0.8, 0.8]]


def test_a_treasure_goes_to_the_first_free_collector_touching_it():
    s = world(CONTESTED, holding=[1, -1, -1], types=[0, 1, 0])
    _, s2, rew, done, info = FNS.step_env(KEY, s, discrete(ENV))
    np.testing.assert_array_equal(s2.holding, [1, 0, -1])  # c0 busy, c1 before c2; c0 not at d1
    np.testing.assert_array_equal(s2.alive, [False, True, True])
    close(s2.p_pos[5], PARKED, atol=0)
    close(s2.p_pos[:5], CONTESTED[:5], atol=0)  # nothing moved
    assert int(s2.collected) == 1 and int(s2.delivered) == 0
    assert float(info["metrics"]["collected"]) == 1.0 and float(info["metrics"]["delivered"]) == 0.0
    # c0 overlaps c1 and c2 (0.085 apart), c1 and c2 are 0.12 apart.
    c0, c1, c2, d0, d1 = CONTESTED[:5]
    expected = {
        "collector_0": 5 - 10 - 0.1 * dist(c0, d1),  # carrying type 1: towards d1
        "collector_1": 5 - 5 - 0.1 * dist(c1, d0),  # now carrying type 0: towards d0
        "collector_2": 5 - 5 - 0.1 * min(dist(c2, [0.5, 0.5]), dist(c2, [0.8, 0.8])),  # t0 is gone
        "deposit_0": 5 - 0.1 * dist(d0, c1),  # the nearest collector carrying type 0
        "deposit_1": 5 - 0.1 * dist(d1, c0),
    }
    for agent, value in expected.items():
        close(rew[agent], value, rtol=1e-6, atol=1e-6)
    assert not bool(done["__all__"])


# A collector on two treasures, a delivery, and a pick-up delivered in the same step:
#
#   t1 (-0.12, 0)  c0 (-0.06, 0)  t0 (0, 0)     c0 (free) touches t0 and t1: takes t0 only
#                                 c2 (0.5, 0.5) on t2 (0.5, 0.55), type 1, and on d1 (0.5, 0.4)
#                                 c1 (0.5, -0.5) carries type 0, on d0 (0.5, -0.6)
DELIVERIES = [[-0.06, 0], [0.5, -0.5], [0.5, 0.5], [0.5, -0.6], [0.5, 0.4], [0, 0], [-0.12, 0], [0.5, 0.55]]


def test_collectors_take_one_treasure_and_deliver_to_their_types_deposit():
    s = world(DELIVERIES, holding=[-1, 0, -1], types=[1, 0, 1])
    _, s2, rew, _, info = FNS.step_env(KEY, s, discrete(ENV))
    np.testing.assert_array_equal(s2.holding, [1, -1, -1])  # c0 holds t0's type; c1, c2 delivered
    np.testing.assert_array_equal(s2.alive, [False, True, False])
    close(s2.p_pos[np.array([5, 7])], [PARKED, PARKED], atol=0)
    close(s2.p_pos[6], [-0.12, 0.0], atol=0)
    assert (int(s2.collected), int(s2.delivered)) == (2, 2)
    assert float(info["metrics"]["delivered"]) == 2.0
    c0, c1, c2, d0, d1 = DELIVERIES[:5]
    close(rew["collector_0"], 20 - 0.1 * dist(c0, d1), rtol=1e-6, atol=1e-6)
    close(rew["collector_1"], 20 - 0.1 * dist(c1, [-0.12, 0]), rtol=1e-6, atol=1e-6)  # only t1 is left
    centroid = np.mean([c0, c1, c2], axis=0)
    close(rew["deposit_0"], 20 - 0.1 * dist(d0, centroid), rtol=1e-6, atol=1e-6)  # nobody carries type 0
    close(rew["deposit_1"], 20 - 0.1 * dist(d1, c0), rtol=1e-6, atol=1e-6)


class FixedRespawn(CollectTreasureMPE):
    """Treasures respawn at the origin with type 1."""

    def respawn_draws(self, key, state):
        del key, state
        return jnp.zeros((self.num_treasures, 2)), jnp.ones((self.num_treasures,), jnp.int32)


def test_a_picked_treasure_respawns_on_the_next_step_and_cannot_be_taken_then():
    env = FixedRespawn(**SMALL)
    step = jit(env.step_env)
    # t0 was picked up on the previous step; c0 waits at the origin, where it respawns.
    pos = [[0, 0], [0.5, -0.5], [-0.5, 0.5], [-0.8, -0.8], [0.8, -0.8], PARKED, [0.3, 0.6], [0.6, 0.3]]
    s = world(pos, holding=[-1, -1, -1], types=[0, 0, 0], alive=[False, True, True])
    _, s2, *_ = step(KEY, s, discrete(ENV))
    np.testing.assert_array_equal(s2.alive, [True, True, True])
    close(s2.p_pos[5], [0, 0], atol=0)
    np.testing.assert_array_equal(s2.treasure_type, [1, 0, 0])  # the others keep theirs
    np.testing.assert_array_equal(s2.holding, [-1, -1, -1])  # not taken on its respawn step
    _, s3, *_ = step(KEY, s2, discrete(ENV))
    np.testing.assert_array_equal(s3.holding, [1, -1, -1])
    np.testing.assert_array_equal(s3.alive, [False, True, True])


def test_respawns_are_uniform_in_the_spawn_square_with_uniform_types():
    keys = jax.random.split(KEY, 2000)
    pos, kind = jax.vmap(ENV.respawn_draws, in_axes=(0, None))(keys, world(CONTESTED, [-1] * 3, [0] * 3))
    pos, kind = np.asarray(pos).reshape(-1, 2), np.asarray(kind).ravel()
    assert pos.min() >= -0.95 and pos.max() <= 0.95 and pos.min() < -0.94 and pos.max() > 0.94
    np.testing.assert_allclose(pos.std(axis=0), 0.95 / np.sqrt(3.0), atol=0.02)
    np.testing.assert_allclose(np.bincount(kind, minlength=2) / kind.size, [0.5, 0.5], atol=0.02)


def test_reset_draws_types_and_starts_empty_handed():
    _, st = FNS.reset(jax.random.split(KEY, 1000))
    assert np.all(np.asarray(st.holding) == -1) and np.all(np.asarray(st.alive))
    types = np.asarray(st.treasure_type).ravel()
    np.testing.assert_allclose(np.bincount(types, minlength=2) / types.size, [0.5, 0.5], atol=0.03)
    treasures = np.asarray(st.p_pos[:, 5:])
    assert np.abs(treasures).max() <= 0.95


def test_shaping_without_treasures_on_the_map_and_collector_overlaps():
    # Every treasure was just picked up; c0 and c1 overlap (0.08 apart), c2 is alone.
    pos = [[0, 0], [0.08, 0], [0.5, 0.5], [-0.5, -0.5], [0.5, -0.5], PARKED, PARKED, PARKED]
    s = world(pos, holding=[-1, -1, -1], types=[0, 1, 0], alive=[False] * 3)
    rew = FNS.rewards(s)
    close(rew["collector_0"], -5.0, atol=1e-6)  # no treasure to seek: no shaping
    close(rew["collector_1"], -5.0, atol=1e-6)
    close(rew["collector_2"], 0.0, atol=1e-6)
    centroid = np.mean(pos[:3], axis=0)
    close(rew["deposit_1"], -0.1 * dist(pos[4], centroid), rtol=1e-6)


def test_observation_layout():
    # c0 carries type 1; t1 is off the map.
    pos = [[0.1, 0.2], [0.4, 0.2], [0.1, -0.2], [-0.5, 0.2], [0.1, 0.9], [0.3, 0.3], PARKED, [0.1, 0.25]]
    vel = np.zeros((8, 2))
    vel[:5] = [[0.1, 0.0], [0.0, 0.2], [-0.3, 0.0], [0.0, -0.4], [0.5, 0.5]]
    s = world(pos, holding=[1, -1, 0], types=[0, 1, 1], alive=[True, False, True], vel=vel)
    obs = FNS.get_obs(s)
    p, v = np.asarray(pos), vel
    code = {1: [0, 0, 0, 0], 2: [0, 0, 1, 0], 3: [1, 0, 0, 0], 4: [0, 1, 0, 0]}  # [deposit type, holding]
    # collector_0 at (0.1, 0.2): others by distance c1 0.3, c2 0.4, d1 0.7, d0 0.6 -> c1, c2, d0, d1
    expected = [p[0], v[0], [0, 1]]
    for j in (1, 2, 3, 4):
        expected += [p[j] - p[0], v[j], code[j]]
    # treasures on the map by distance: t2 (0.05), t0 (0.2236); then t1 as zeros
    expected += [p[7] - p[0], [0, 1], p[5] - p[0], [1, 0], [0, 0, 0, 0]]
    close(obs["collector_0"], np.concatenate(expected), atol=1e-6)
    # deposit_1 at (0.1, 0.9), no holding part: others c0 0.7, d0 (0.6, 0.7) 0.922, c1 0.762, c2 1.1
    code0 = [0, 0, 0, 1]  # c0 as others see it: carries type 1
    expected = [p[4], v[4]]
    for j, c in ((0, code0), (1, code[1]), (3, code[3]), (2, code[2])):
        expected += [p[j] - p[4], v[j], c]
    expected += [p[5] - p[4], [1, 0], p[7] - p[4], [0, 1], [0, 0, 0, 0]]  # t0 0.632, t2 0.65
    close(obs["deposit_1"], np.concatenate(expected), atol=1e-6)
    assert obs["collector_0"].shape == (4 + 2 + 4 * 8 + 3 * 4,)
    assert obs["deposit_1"].shape == (4 + 4 * 8 + 3 * 4,)


def test_global_state_hides_treasures_off_the_map():
    pos = [[0.1, 0.2], [0.4, 0.2], [0.1, -0.2], [-0.5, 0.2], [0.1, 0.9], [0.3, 0.3], PARKED, [0.1, 0.25]]
    s = world(pos, holding=[1, -1, 0], types=[0, 1, 1], alive=[True, False, True])
    g = np.asarray(ENV.get_global_state(s))
    expected = np.concatenate(
        [np.ravel(pos[:5]), np.zeros(10), [0, 1, 0, 0, 1, 0], [0.3, 0.3, 0, 0, 0.1, 0.25], [1, 0, 0, 0, 0, 1]]
    )
    close(g, expected, atol=1e-6)


def test_deposits_are_heavier_and_nobody_is_faster_than_one():
    s = world(CONTESTED, holding=[-1, -1, -1], types=[0, 0, 0])
    acts = discrete(ENV, collector_2=2, deposit_0=2)  # +x
    _, s2, *_ = FNS.step_env(KEY, s, acts)
    close(s2.p_vel[2], [0.15, 0.0])  # accel 1.5, mass 1, dt 0.1
    close(s2.p_vel[3], [0.15 / 2.25, 0.0])  # mass 2.25
    vel = np.zeros((8, 2))
    vel[1] = [2.0, 0.0]
    s = world(CONTESTED, holding=[-1, -1, -1], types=[0, 0, 0], vel=vel)
    _, s2, *_ = FNS.step_env(KEY, s, discrete(ENV, collector_1=2))
    close(s2.p_vel[1], [1.0, 0.0])  # 2 * 0.75 + 0.15 capped at 1
    close(s2.p_vel[0], [0.0, 0.0])  # nobody collides: overlapping c0 and c1 are not pushed apart


def test_treasures_off_the_map_are_not_drawn():
    pos = [[0.1, 0.2], [0.4, 0.2], [0.1, -0.2], [-0.5, 0.2], [0.1, 0.9], [0.3, 0.3], PARKED, [0.1, 0.25]]
    s = world(pos, holding=[1, -1, 0], types=[0, 1, 1], alive=[True, False, True])
    render = jit(lambda s: ENV.render(s, size=64))
    frame = np.asarray(render(s))
    moved = np.asarray(render(s.replace(p_pos=s.p_pos.at[6].set(jnp.array([-0.6, -0.6])))))
    np.testing.assert_array_equal(frame, moved)  # hidden wherever it is, and no zooming out
    shown = np.asarray(
        render(s.replace(alive=jnp.ones(3, bool), p_pos=s.p_pos.at[6].set(jnp.array([-0.6, -0.6]))))
    )
    assert np.any(shown != frame)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"num_collectors": 0},
        {"num_deposits": 0},
        {"num_deposits": 7},
        {"num_treasures": 0},
        {"num_treasures": 1.5},
    ],
)
def test_bad_counts_raise(kwargs):
    with pytest.raises(ValueError, match=next(iter(kwargs))):
        jaxmarl.make("MPE_collect_treasure_v1", **kwargs)
