"""Rule tests of the Coin Game (JaxMARL paper, Appendix B.3) on hand-drawn 3x3 worlds, with
exact asserts: moves and wrap-around, the four pick-up cases, payoffs, coin respawns
(statistically, over many keys), the start layout, the inner/outer episode flags.

Pictures list the grid's rows from the top (row 2) to the bottom (row 0); a cell holds
``.`` or any of ``R`` (red player, ``agent_0``), ``B`` (blue player, ``agent_1``), ``r``
(red coin) and ``b`` (blue coin).
"""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmarl
from jaxmarl.environments.coin_game import DOWN, LEFT, RIGHT, STAY, UP, State
from jaxmarl.environments.coin_game.generator import pick_cell

# Tiny worlds compile far slower than they run: skip LLVM's backend optimisations.
OPTS = {"xla_backend_optimization_level": 0}

ENV = jaxmarl.make("coin_game")  # 3x3, 10 inner steps x 10 outer steps, flat obs
STEP_ENV = jax.jit(ENV.step_env, compiler_options=OPTS)
MANY_STEPS = jax.jit(jax.vmap(ENV.step_env, in_axes=(0, None, None)), compiler_options=OPTS)
KEY = jax.random.PRNGKey(0)


def world(picture: str, step: int = 0) -> State:
    """A state from a picture (rows top to bottom, cells separated by spaces)."""
    rows = [line.split() for line in picture.strip().splitlines()]
    size = len(rows)
    where: dict[str, tuple[int, int]] = {}
    for k, cells in enumerate(rows):
        for col, cell in enumerate(cells):
            for piece in cell.strip("."):
                where[piece] = (size - 1 - k, col)
    return State(
        agent_pos=jnp.asarray([where["R"], where["B"]], jnp.int32),
        coin_pos=jnp.asarray([where["r"], where["b"]], jnp.int32),
        step=jnp.int32(step),
    )


def acts(red: int = STAY, blue: int = STAY) -> dict[str, jax.Array]:
    return {"agent_0": jnp.int32(red), "agent_1": jnp.int32(blue)}


def rewards(rew: dict) -> list[float]:
    return [float(rew["agent_0"]), float(rew["agent_1"])]


def cells(pos: jax.Array) -> list[tuple[int, int]]:
    return [tuple(int(v) for v in p) for p in np.asarray(pos)]


# ---------------------------------------------------------------- movement
START = """
. . b
. R .
r . B
"""


@pytest.mark.parametrize(
    "action, cell", [(RIGHT, (1, 2)), (LEFT, (1, 0)), (UP, (2, 1)), (DOWN, (0, 1)), (STAY, (1, 1))]
)
def test_moves(action, cell):
    _, s, rew, _, _ = STEP_ENV(KEY, world(START), acts(red=action))
    assert cells(s.agent_pos) == [cell, (0, 2)]
    assert rewards(rew) == [0.0, 0.0]


@pytest.mark.parametrize(
    "picture, player, action, cell",
    [
        (START, 1, RIGHT, (0, 0)),  # blue (0, 2): column 2 -> 0
        (START, 1, DOWN, (2, 2)),  # blue (0, 2): row 0 -> 2
        ("R . b\n. . .\nr . B\n", 0, LEFT, (2, 2)),  # red (2, 0): column 0 -> 2
        ("R . b\n. . .\nr . B\n", 0, UP, (0, 0)),  # red (2, 0): row 2 -> 0
    ],
)
def test_moves_wrap_around(picture, player, action, cell):
    actions = acts(red=action) if player == 0 else acts(blue=action)
    _, s, _, _, _ = STEP_ENV(KEY, world(picture), actions)
    assert cells(s.agent_pos)[player] == cell


def test_players_may_share_a_cell():
    _, s, _, _, _ = STEP_ENV(KEY, world(". . b\n. R B\nr . .\n"), acts(red=RIGHT))
    assert cells(s.agent_pos) == [(1, 2), (1, 2)]


# ---------------------------------------------------------------- pick-ups
def test_own_coin():
    #  . . b        red steps left onto the red coin
    #  r R .
    #  . . B
    _, s, rew, _, info = STEP_ENV(KEY, world(". . b\nr R .\n. . B\n"), acts(red=LEFT))
    assert rewards(rew) == [1.0, 0.0]
    assert bool(info["own_coin_collected"]["agent_0"]) and not bool(info["other_coin_collected"]["agent_0"])
    assert not bool(info["own_coin_collected"]["agent_1"]) and not bool(
        info["other_coin_collected"]["agent_1"]
    )
    # the red coin moved away, off both players and the blue coin; the blue coin stayed
    red_coin, blue_coin = cells(s.coin_pos)
    assert blue_coin == (2, 2)
    assert red_coin not in [(1, 0), (0, 2), (2, 2)]


def test_other_players_coin():
    #  . . b        red steps up onto the blue coin: +1 to red, -2 to blue
    #  . . R
    #  r B .
    _, s, rew, _, info = STEP_ENV(KEY, world(". . b\n. . R\nr B .\n"), acts(red=UP))
    assert rewards(rew) == [1.0, -2.0]
    assert bool(info["other_coin_collected"]["agent_0"]) and not bool(info["own_coin_collected"]["agent_0"])
    assert cells(s.coin_pos)[0] == (0, 0)
    assert cells(s.coin_pos)[1] not in [(2, 2), (0, 1), (0, 0)]


@pytest.mark.parametrize(
    "picture, expected",
    [
        # both step onto the red coin: both collect it; red loses 2 to blue's pick-up
        (". . b\nR r B\n. . .\n", [1.0 - 2.0, 1.0]),
        # both step onto the blue coin
        (". . r\nR b B\n. . .\n", [1.0, 1.0 - 2.0]),
    ],
)
def test_both_players_on_one_coin_both_collect(picture, expected):
    _, s, rew, _, info = STEP_ENV(KEY, world(picture), acts(red=RIGHT, blue=LEFT))
    assert rewards(rew) == expected
    coin = 0 if "r" in picture.splitlines()[1] else 1
    for i, a in enumerate(ENV.agents):
        assert bool((info["own_coin_collected"] if i == coin else info["other_coin_collected"])[a])
    assert cells(s.coin_pos)[coin] not in [(1, 1), (2, 2)]


def test_both_coins_taken_in_one_step():
    #  . . .        red steps right onto blue's coin, blue steps left onto red's:
    #  R b .        each gets +1 and loses 2
    #  . r B
    _, s, rew, _, _ = STEP_ENV(KEY, world(". . .\nR b .\n. r B\n"), acts(red=RIGHT, blue=LEFT))
    assert rewards(rew) == [-1.0, -1.0]
    red_coin, blue_coin = cells(s.coin_pos)
    assert red_coin != blue_coin
    assert {red_coin, blue_coin}.isdisjoint({(1, 1), (0, 1)})


def test_pick_up_across_the_wrap():
    #  . b .        red at the right edge steps right, onto the red coin in column 0;
    #  r . R        blue at the bottom steps down, onto the blue coin in the top row
    #  . B .
    picture = ". b .\nr . R\n. B .\n"
    _, _, rew, _, _ = STEP_ENV(KEY, world(picture), acts(red=RIGHT, blue=DOWN))
    assert rewards(rew) == [1.0, 1.0]


def test_staying_on_a_coin_collects_it():
    # only in hand-built states can a coin lie under a player
    _, _, rew, _, _ = STEP_ENV(KEY, world(". . b\n. Rr .\n. . B\n"), acts())
    assert rewards(rew) == [1.0, 0.0]


def test_custom_payoff_matrix_layout():
    env = jaxmarl.make("coin_game", payoff_matrix=[[2, 3, -5], [7, 11, -13]])
    step = jax.jit(env.step_env, compiler_options=OPTS)
    cases = [
        (". . b\nr R .\n. . B\n", acts(red=LEFT), [2.0, 0.0]),  # red takes red
        (". . b\n. . R\nr B .\n", acts(red=UP), [3.0, -13.0]),  # red takes blue
        (". . b\n. . R\nr B .\n", acts(blue=LEFT), [-5.0, 7.0]),  # blue takes red
        (". . b\n. . R\nr B .\n", acts(blue=RIGHT, red=DOWN), [0.0, 0.0]),
        (". B b\n. . R\nr . .\n", acts(blue=RIGHT), [0.0, 11.0]),  # blue takes blue
    ]
    for picture, actions, expected in cases:
        _, _, rew, _, _ = step(KEY, world(picture), actions)
        assert rewards(rew) == expected, picture


def test_shared_rewards_give_both_the_sum():
    env = jaxmarl.make("coin_game", shared_rewards=True)
    _, _, rew, _, _ = jax.jit(env.step_env, compiler_options=OPTS)(
        KEY, world(". . b\n. . R\nr B .\n"), acts(red=UP)
    )
    assert rewards(rew) == [-1.0, -1.0]


# ------------------------------------------------------------- randomness
def test_respawn_is_uniform_over_free_cells():
    # red takes its coin at (1, 0); free cells: all but the players' (1, 0), (0, 2) and
    # the blue coin's (2, 2): six cells, each about 1/6 of 6000 draws
    keys = jax.random.split(jax.random.PRNGKey(1), 6000)
    _, s, _, _, _ = MANY_STEPS(keys, world(". . b\nr R .\n. . B\n"), acts(red=LEFT))
    red = np.asarray(s.coin_pos[:, 0, 0] * 3 + s.coin_pos[:, 0, 1])
    assert np.all(np.asarray(s.coin_pos[:, 1]) == [2, 2])
    share = np.bincount(red, minlength=9) / len(keys)
    allowed = np.ones(9, bool)
    allowed[[3, 2, 8]] = False
    assert np.all(share[~allowed] == 0)
    np.testing.assert_allclose(share[allowed], 1 / 6, atol=0.03)


def test_both_respawned_coins_avoid_players_and_each_other():
    keys = jax.random.split(jax.random.PRNGKey(2), 4000)
    _, s, _, _, _ = MANY_STEPS(keys, world(". . .\nR b .\n. r B\n"), acts(red=RIGHT, blue=LEFT))
    coins = np.asarray(s.coin_pos[..., 0] * 3 + s.coin_pos[..., 1])  # (keys, 2)
    players = np.asarray(s.agent_pos[..., 0] * 3 + s.agent_pos[..., 1])
    assert np.all(players == [4, 1])
    assert np.all(coins[:, 0] != coins[:, 1])
    assert not np.isin(coins, [4, 1]).any()
    # every ordered pair of the seven free cells shows up
    assert len({tuple(c) for c in coins}) == 7 * 6


def test_respawn_on_a_2x2_grid_takes_the_only_free_cell():
    env = jaxmarl.make("coin_game", grid_size=2)
    step = jax.jit(jax.vmap(env.step_env, in_axes=(0, None, None)), compiler_options=OPTS)
    #  R B          red steps down onto the red coin; the only cell with no player and
    #  r b          no coin is then (1, 0), where red came from
    s0 = State(
        agent_pos=jnp.asarray([[1, 0], [1, 1]], jnp.int32),
        coin_pos=jnp.asarray([[0, 0], [0, 1]], jnp.int32),
        step=jnp.int32(0),
    )
    _, s, rew, _, _ = step(jax.random.split(KEY, 200), s0, acts(red=DOWN))
    assert np.all(np.asarray(rew["agent_0"]) == 1.0)
    assert np.all(np.asarray(s.coin_pos[:, 0]) == [1, 0])


def test_pick_cell_is_the_rank_th_allowed_cell():
    # every excluded triple (duplicates and "none" = -1 included) on 9 cells, every word
    # residue: the pick is the (word % k)-th allowed cell, counted by brute force
    triples = np.array(list(itertools.product(range(-1, 9), repeat=3)), np.int32)
    words = np.arange(9, dtype=np.uint32)
    pick = jax.jit(jax.vmap(jax.vmap(pick_cell, (None, 0, None)), (0, None, None)), static_argnums=2)
    got = np.asarray(pick(words, triples, 9))  # (word, triple)
    for t, excluded in enumerate(triples.tolist()):
        allowed = [c for c in range(9) if c not in excluded]
        expected = [allowed[w % len(allowed)] for w in words.tolist()]
        assert got[:, t].tolist() == expected, excluded


def test_start_layout_uses_four_distinct_uniform_cells():
    keys = jax.random.split(jax.random.PRNGKey(3), 9000)
    _, s = jax.jit(jax.vmap(ENV.reset), compiler_options=OPTS)(keys)
    pos = np.concatenate([np.asarray(s.agent_pos), np.asarray(s.coin_pos)], axis=1)  # (keys, 4, 2)
    flat = pos[..., 0] * 3 + pos[..., 1]
    assert all(len(set(row)) == 4 for row in flat.tolist())
    for piece in range(4):
        share = np.bincount(flat[:, piece], minlength=9) / len(keys)
        np.testing.assert_allclose(share, 1 / 9, atol=0.02)
    assert np.all(np.asarray(s.step) == 0)


# ------------------------------------------------------------ episode flags
def test_inner_and_outer_episode_flags():
    env = jaxmarl.make("coin_game", num_inner_steps=3, num_outer_steps=2)
    assert env.max_steps == 6
    step = jax.jit(env.step, compiler_options=OPTS)
    get_obs = jax.jit(env.get_obs, compiler_options=OPTS)
    #  . . b        red stays, except on the last step of each inner episode, when it
    #  . R r        steps right onto its coin
    #  . . B
    picture = ". . b\n. R r\n. . B\n"
    for t in range(1, 7):
        inner_end, outer_end = t % 3 == 0, t == 6
        obs, s, rew, done, info = step(
            jax.random.PRNGKey(t), world(picture, step=t - 1), acts(red=RIGHT if inner_end else STAY)
        )
        assert bool(info["inner_episode_done"]) == inner_end, t
        assert bool(done["__all__"]) == outer_end, t
        assert all(bool(done[a]) == outer_end for a in env.agents), t
        assert all(bool(info["truncated"][a]) == outer_end for a in env.agents), t
        # the last step of an inner episode still pays
        assert rewards(rew) == ([1.0, 0.0] if inner_end else [0.0, 0.0]), t
        assert int(s.step) == t % 6, t
        np.testing.assert_array_equal(np.asarray(obs["agent_0"]), np.asarray(get_obs(s)["agent_0"]))
        if inner_end:  # a fresh layout: the next inner (or outer) episode's
            layout = np.concatenate([np.asarray(s.agent_pos), np.asarray(s.coin_pos)])
            assert len({tuple(p) for p in layout.tolist()}) == 4, t
        else:
            assert cells(s.agent_pos) == [(1, 1), (0, 2)] and cells(s.coin_pos) == [(1, 2), (2, 2)], t
    # final_obs at the outer end is the last observation before the reset: red on (1, 2)
    final = np.asarray(info["final_obs"]["agent_0"]).reshape(3, 3, 4)
    assert final[1, 2, 0] == 1 and final[..., 0].sum() == 1


def test_plain_episodes_with_one_outer_step():
    env = jaxmarl.make("coin_game", num_inner_steps=4, num_outer_steps=1)
    step = jax.jit(env.step, compiler_options=OPTS)
    s = world(START)
    for t in range(1, 5):
        _, s, _, done, info = step(jax.random.PRNGKey(t), s, acts())
        assert bool(done["__all__"]) == bool(info["inner_episode_done"]) == (t == 4)
    assert int(s.step) == 0


# ------------------------------------------------------------ observations
OBS_WORLD = ". . b\nR . .\nr . B\n"  # R (1,0), B (0,2), r (0,0), b (2,2)


def grid(entries: dict[tuple[int, int], list[int]], size: int = 3) -> np.ndarray:
    """A (size, size, 4) grid with ones at (row, col, channel) for each channel listed."""
    g = np.zeros((size, size, 4), np.uint8)
    for (r, c), channels in entries.items():
        g[r, c, channels] = 1
    return g


def test_fixed_frame_flat_observation():
    obs = jax.jit(ENV.get_obs, compiler_options=OPTS)(world(OBS_WORLD))
    # channels: self, other player, own coin, other's coin
    red = grid({(1, 0): [0], (0, 2): [1], (0, 0): [2], (2, 2): [3]})
    blue = grid({(0, 2): [0], (1, 0): [1], (2, 2): [2], (0, 0): [3]})
    assert obs["agent_0"].shape == (36,) and obs["agent_0"].dtype == jnp.uint8
    np.testing.assert_array_equal(np.asarray(obs["agent_0"]), red.reshape(-1))
    np.testing.assert_array_equal(np.asarray(obs["agent_1"]), blue.reshape(-1))


def test_egocentric_grid_observation():
    env = jaxmarl.make("coin_game", cnn=True, egocentric=True)
    obs = jax.jit(env.get_obs, compiler_options=OPTS)(world(OBS_WORLD))
    assert obs["agent_0"].shape == (3, 3, 4)
    # red at (1,0) moves to the centre (1,1): shift (0, +1)
    red = grid({(1, 1): [0], (0, 0): [1], (0, 1): [2], (2, 0): [3]})
    # blue at (0,2) moves to (1,1): shift (+1, -1)
    blue = grid({(1, 1): [0], (2, 2): [1], (0, 1): [2], (1, 2): [3]})
    np.testing.assert_array_equal(np.asarray(obs["agent_0"]), red)
    np.testing.assert_array_equal(np.asarray(obs["agent_1"]), blue)


def test_egocentric_flat_observation_on_a_4x4_grid_centres_on_2_2():
    env = jaxmarl.make("coin_game", egocentric=True, grid_size=4)
    s = State(
        agent_pos=jnp.asarray([[0, 0], [3, 3]], jnp.int32),
        coin_pos=jnp.asarray([[0, 1], [1, 0]], jnp.int32),
        step=jnp.int32(0),
    )
    obs = jax.jit(env.get_obs, compiler_options=OPTS)(s)
    assert obs["agent_0"].shape == (64,)
    # red: shift (+2, +2); blue: shift (-1, -1)
    red = grid({(2, 2): [0], (1, 1): [1], (2, 3): [2], (3, 2): [3]}, 4)
    blue = grid({(2, 2): [0], (3, 3): [1], (0, 3): [2], (3, 0): [3]}, 4)
    np.testing.assert_array_equal(np.asarray(obs["agent_0"]), red.reshape(-1))
    np.testing.assert_array_equal(np.asarray(obs["agent_1"]), blue.reshape(-1))


def test_global_state_is_the_fixed_frame_grid_and_inner_progress():
    gs = jax.jit(ENV.get_global_state, compiler_options=OPTS)(world(OBS_WORLD, step=14))
    red_view = grid({(1, 0): [0], (0, 2): [1], (0, 0): [2], (2, 2): [3]}).reshape(-1)
    np.testing.assert_array_equal(np.asarray(gs), np.array([*red_view, 0.4], np.float32))
    assert gs.dtype == jnp.float32


def test_render_draws_players_and_coins():
    render = jax.jit(ENV.render, compiler_options=OPTS)
    img = np.asarray(render(world(OBS_WORLD)))
    assert img.shape == (144, 144, 3) and img.dtype == np.uint8
    red, blue = np.round(np.array([0.85, 0.25, 0.25]) * 255), np.round(np.array([0.25, 0.35, 0.85]) * 255)
    # row 0 is the bottom band of pixels: red player (1, 0) in the middle band on the left
    np.testing.assert_array_equal(img[60, 10], red)
    np.testing.assert_array_equal(img[100, 100], blue)  # blue player (0, 2), bottom right
    np.testing.assert_array_equal(img[120, 24], np.round(np.array([1.0, 0.55, 0.55]) * 255))  # red coin
    np.testing.assert_array_equal(img[24, 120], np.round(np.array([0.55, 0.65, 1.0]) * 255))  # blue coin
    # players sharing a cell split it: red on the left half, blue on the right
    img = np.asarray(render(world(". . b\n. RB .\nr . .\n")))
    np.testing.assert_array_equal(img[60, 55], red)
    np.testing.assert_array_equal(img[60, 88], blue)
