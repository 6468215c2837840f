"""JaxMARL 0.2.0's names in our MPE, Overcooked, Hanabi, STORM, Coin Game, Switch Riddle
and MABrax families mean what they meant there.

Plain aliases are covered by ``test_jaxmarl020_surface.py``; here each name that does more
than rename is checked for its meaning (the physics constants are the ones the physics
uses, JaxMARL's layout dicts are our kitchens, ``reset_from_deck`` deals that deck, ...),
the visualisers write a GIF and show a frame on a headless machine, and the last test
compares with JaxMARL 0.2.0's own objects (``jaxmarl020_families_worker.py``): its layout
dicts, its Hanabi action names and feature sizes, and two Hanabi games replayed move for
move (legal moves, board and v0 belief features, rewards, hands, ``get_obs_str``).
"""

from __future__ import annotations

import json
from pathlib import Path

import jax
import jax.numpy as jnp
import matplotlib
import numpy as np
import pytest
from fast_compile import parity_jit as jit
from PIL import Image

import jaxmarl
from jaxmarl.environments.hanabi.generator import shuffled_deck, sorted_deck
from jaxmarl.environments.mpe import constants as MPE
from jaxmarl.environments.mpe.types import State as MPEState
from jaxmarl.environments.overcooked import (
    CLASSIC_LAYOUTS,
    LayoutError,
    get_layout,
    layout_from_dict,
    layout_grid_to_dict,
    layout_to_dict,
    overcooked_layouts,
)
from jaxmarl.environments.overcooked.layouts import JAXMARL_LAYOUT_NAMES, counter_circuit_grid
from tests.oracles.jaxmarl020 import run_oracle

matplotlib.use("Agg")

WORKER = Path(__file__).with_name("jaxmarl020_families_worker.py")


def gif_frames(path: Path) -> tuple[list[np.ndarray], int]:
    """The frames of a GIF (Pillow merges identical consecutive ones) and its duration in ms."""
    with Image.open(path) as gif:
        frames, duration = [], 0
        for i in range(gif.n_frames):
            gif.seek(i)
            frames.append(np.asarray(gif.convert("RGB")))
            duration += gif.info["duration"]
        return frames, duration


def mpe_state(env, pos, vel=None) -> MPEState:
    pos = jnp.asarray(pos, jnp.float32)
    vel = jnp.zeros_like(pos) if vel is None else jnp.asarray(vel, jnp.float32)
    goal = jnp.zeros((0,), jnp.int32)
    return MPEState(
        p_pos=pos, p_vel=vel, c=jnp.zeros((env.num_world_agents, env.dim_c)), step=jnp.int32(0), goal=goal
    )


# ----------------------------------------------------------------------------- MPE
def test_mpe_world_constants_are_the_ones_the_physics_uses():
    from jaxmarl.environments.mpe import default_params

    env = jaxmarl.make("MPE_simple_spread_v3", num_agents=3, num_landmarks=1)
    assert (default_params.DT, default_params.DAMPING) == (env.dt, env.damping) == (MPE.DT, MPE.DAMPING)
    assert (
        env.contact_force,
        env.contact_margin,
    ) == (default_params.CONTACT_FORCE, default_params.CONTACT_MARGIN)
    assert env.dim_p == 2 and env.max_steps == default_params.MAX_STEPS
    np.testing.assert_array_equal(env.rad, env.size)
    np.testing.assert_array_equal(env.moveable, [True, True, True, False])
    # Agent 0 drifts freely; agents 1 and 2 overlap and push each other apart.
    pos = [[-0.6, 0.0], [0.5, 0.0], [0.5 + env.rad[1] + env.rad[2] - 0.01, 0.0], [-0.9, 0.9]]
    vel = [[0.3, -0.2], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]
    state = mpe_state(env, pos, vel)
    noop = {a: jnp.int32(0) for a in env.agents}
    _, nxt, _, _, _ = jit(env.step_env)(jax.random.PRNGKey(0), state, noop)
    np.testing.assert_allclose(nxt.p_pos[0], np.add(pos[0], np.multiply(vel[0], env.dt)), rtol=1e-6)
    np.testing.assert_allclose(nxt.p_vel[0], np.multiply(vel[0], 1 - env.damping), rtol=1e-6)
    dist, k = pos[2][0] - pos[1][0], env.contact_margin
    penetration = np.logaddexp(0, -(dist - env.rad[1] - env.rad[2]) / k) * k
    push = env.contact_force * penetration * env.dt  # mass 1
    np.testing.assert_allclose(nxt.p_vel[1:3], [[-push, 0.0], [push, 0.0]], rtol=1e-5)
    np.testing.assert_array_equal(nxt.p_pos[3], state.p_pos[3])  # the landmark does not move


def test_mpe_names_index_the_world():
    env = jaxmarl.make("MPE_simple_world_comm_v3")
    assert env.agents == [env.leader, *env.adversaries, *env.good_agents]
    assert env.leader == env.agents[env.leader_idx] == "leadadversary_0"
    assert env.num_adversaries == len(env.adversaries) + 1 and env.num_good_agents == len(env.good_agents)
    assert [env.a_to_i[a] for a in env.agents] == list(range(env.num_agents))
    np.testing.assert_array_equal(env.entity_range, np.arange(env.num_entities))
    assert env.landmarks == ["landmark 0", "food 0", "food 1", "forest 0", "forest 1"]
    # obstacles 0.2, food 0.03, forests 0.3 (world_comm's radii): l_to_i points at them
    assert [env.rad[env.l_to_i[name]] for name in env.landmarks] == pytest.approx([0.2, 0.03, 0.03, 0.3, 0.3])
    crypto = jaxmarl.make("MPE_simple_crypto_v3")
    from jaxmarl.environments.mpe import simple_crypto, simple_push, simple_speaker_listener

    assert crypto.adversaries == simple_crypto.ADVERSARY_NAMES == [simple_crypto.ADVERSARY] == ["eve_0"]
    assert crypto.good_agents == [simple_crypto.SPEAKER, simple_crypto.LISTENER] == ["alice_0", "bob_0"]
    assert jaxmarl.make("MPE_simple_speaker_listener_v4").agents == simple_speaker_listener.AGENT_NAMES
    push = jaxmarl.make("MPE_simple_push_v3")
    assert (push.adversaries, push.good_agents, push.num_adversaries, push.num_good_agents) == (
        ["adversary_0"],
        ["agent_0"],
        1,
        1,
    )
    # The good agent observes both landmark colours, COLOUR_1 then COLOUR_2 (OBS_COLOUR).
    obs, _ = push.reset(jax.random.PRNGKey(0))
    np.testing.assert_allclose(obs["agent_0"][11:17], simple_push.OBS_COLOUR)
    np.testing.assert_allclose(
        simple_push.OBS_COLOUR, np.concatenate([simple_push.COLOUR_1, simple_push.COLOUR_2])
    )


def test_mpe_set_actions_bounds_reward_and_jaxmarl_order_collisions():
    tag = jaxmarl.make("MPE_simple_tag_v3", num_good_agents=1, num_adversaries=1, num_obs=0)
    u, c = tag.set_actions({"adversary_0": jnp.int32(2), "agent_0": jnp.int32(3)})  # +x, -y
    np.testing.assert_allclose(u, [[3.0, 0.0], [0.0, -4.0]])  # scaled by accel (3 and 4)
    assert c.shape == (2, tag.dim_c)
    x = jnp.array([0.5, 0.95, 1.5, 3.0])
    np.testing.assert_allclose(tag.map_bounds_reward(x), [0.0, 0.5, np.exp(1.0), 10.0], rtol=1e-5)
    # The good agent's reward: -10 per touching adversary (none) minus the bounds penalty.
    state = mpe_state(tag, [[0.0, 0.0], [0.95, -1.5]])
    expected = -float(jnp.sum(tag.map_bounds_reward(jnp.abs(state.p_pos[1]))))
    assert float(jit(tag.rewards)(state)["agent_0"]) == pytest.approx(expected)
    # JaxMARL's argument order also requires both entities to collide and differ.
    wc = jaxmarl.make("MPE_simple_world_comm_v3", num_good_agents=1, num_adversaries=1, num_obs=1, num_food=1)
    forest = wc.l_to_i["forest 0"]
    state = mpe_state(wc, np.zeros((wc.num_entities, 2)))  # everything overlaps

    def collisions(state):
        jaxmarl_order = jax.vmap(wc.is_collision, in_axes=(0, 0, None))  # traced indices
        a, b = jnp.array([0, 0, 0]), jnp.array([forest, 1, 0])
        return wc.is_collision(state, 0, forest), jaxmarl_order(a, b, state)

    ours, theirs = jit(collisions)(state)
    assert bool(ours)  # ours: the agent overlaps the forest
    np.testing.assert_array_equal(theirs, [False, True, False])  # forests do not collide; nor does 0 with 0


def test_facmac_map_factories_build_the_registered_maps():
    from jaxmarl.environments.mpe import SimpleFacmacMPE3a, SimpleFacmacMPE6a, SimpleFacmacMPE9a

    for factory, env_id, predators in (
        (SimpleFacmacMPE3a, "MPE_simple_facmac_3a_v1", 3),
        (SimpleFacmacMPE6a, "MPE_simple_facmac_6a_v1", 6),
        (SimpleFacmacMPE9a, "MPE_simple_facmac_9a_v1", 9),
    ):
        ours, registered = factory(), jaxmarl.make(env_id)
        assert ours.num_agents == registered.num_agents == predators
        assert ours.num_good_agents == registered.num_good_agents == predators // 3
        assert ours.num_landmarks == registered.num_landmarks == 2 * predators // 3
        assert ours.score_function == registered.score_function == "min"
        assert ours.observation_spaces == registered.observation_spaces


def test_mpe_visualizer_writes_a_gif_and_views_headless(tmp_path):
    from jaxmarl.environments.mpe import MPEVisualizer
    from jaxmarl.environments.mpe.mpe_visualizer import ALPHABET
    from jaxmarl.environments.mpe.mpe_visualizer import MPEVisualizer as ByModule

    env = jaxmarl.make("MPE_simple_reference_v3")
    _, state = env.reset(jax.random.PRNGKey(0))
    step = jit(env.step)
    states = [state]
    for i in range(4):
        actions = {a: jnp.int32(2 + i % 3) for a in env.agents}
        states.append(step(jax.random.PRNGKey(i), states[-1], actions)[1])
    viz = ByModule(env, states)
    assert MPEVisualizer is ByModule and viz.comm_active and ALPHABET[:3] == "ABC"
    viz.animate(save_fname=tmp_path / "mpe.gif", view=True)  # Agg: nothing to show, no error
    frames, duration = gif_frames(tmp_path / "mpe.gif")
    assert duration == 100 * len(states)  # every state, 10 per second
    first = np.asarray(jit(env.render)(states[0]))
    assert frames[0].shape == first.shape
    assert np.mean(np.abs(frames[0].astype(int) - first)) < 4  # the GIF palette changes colours a little
    assert not np.array_equal(frames[0], frames[-1])


# ------------------------------------------------------------------------ Overcooked
@pytest.mark.parametrize("name", sorted(JAXMARL_LAYOUT_NAMES))
def test_jaxmarl_layout_dicts_are_our_kitchens(name):
    ours = get_layout(JAXMARL_LAYOUT_NAMES[name])
    theirs = layout_from_dict(overcooked_layouts[name])
    np.testing.assert_array_equal(theirs.terrain, ours.terrain)  # the same kitchen
    cells = np.asarray(overcooked_layouts[name]["agent_idx"])
    np.testing.assert_array_equal(theirs.start_pos, np.stack([cells % ours.width, cells // ours.width], -1))
    assert theirs.name == (
        JAXMARL_LAYOUT_NAMES[name] if np.array_equal(theirs.start_pos, ours.start_pos) else "custom"
    )
    back = layout_to_dict(theirs)
    assert set(back) == set(overcooked_layouts[name])
    for key, value in overcooked_layouts[name].items():
        np.testing.assert_array_equal(back[key], value)


def test_overcooked_made_from_a_jaxmarl_dict_plays_that_kitchen():
    env = jaxmarl.make("overcooked", layout=overcooked_layouts["cramped_room"], max_steps=3)
    named = jaxmarl.make("overcooked", layout="cramped_room")
    assert env.agent_view_size == 5 and env.num_actions == 6
    np.testing.assert_array_equal(env.action_set, np.arange(6))
    obs, state = env.reset(jax.random.PRNGKey(0))
    named_obs, _ = named.reset(jax.random.PRNGKey(0))
    assert env.obs_shape == obs["agent_0"].shape == (4, 5, 26)
    np.testing.assert_array_equal(
        obs["agent_0"][..., 10:16], named_obs["agent_0"][..., 10:16]
    )  # terrain channels
    np.testing.assert_array_equal(state.pos, [[1, 1], [3, 1]])  # cells 6 and 8 of the dict
    from jaxmarl.environments.overcooked.overcooked import OvercookedActions

    stay = jnp.int32(OvercookedActions.stay)
    act = {"agent_0": jnp.int32(OvercookedActions.down), "agent_1": stay}  # down: y + 1
    step = jit(env.step)
    for t in range(3):
        assert not bool(env.is_terminal(state))
        _, state, _, done, _ = step(jax.random.PRNGKey(t), state, act)
        if t == 0:
            np.testing.assert_array_equal(state.pos[0], [1, 2])
    assert bool(done["__all__"])  # max_steps=3: the time limit
    assert bool(env.is_terminal(state.replace(step=jnp.int32(3))))


def test_layout_grid_to_dict_reads_jaxmarl_grids_and_rejects_bad_ones():
    grid = layout_grid_to_dict(counter_circuit_grid)
    for key, value in overcooked_layouts["counter_circuit"].items():
        np.testing.assert_array_equal(grid[key], value)
    tiny = layout_grid_to_dict("\nWWPWW\nOA AB\nWWXWW\n")
    assert (tiny["height"], tiny["width"]) == (3, 5)
    np.testing.assert_array_equal(tiny["agent_idx"], [6, 8])
    assert str(layout_from_dict(tiny)) == "XXPXX\nO1 2D\nXXSXX"
    with pytest.raises(LayoutError, match="ragged"):
        layout_grid_to_dict("WWW\nWA\n")
    with pytest.raises(LayoutError, match="unknown character 'Q'"):
        layout_grid_to_dict("WQW\n")
    with pytest.raises(LayoutError, match="missing agent_idx"):
        jaxmarl.make("overcooked", layout={k: v for k, v in tiny.items() if k != "agent_idx"})
    with pytest.raises(LayoutError, match="non-floor"):
        layout_from_dict({**tiny, "agent_idx": np.array([0, 6])})
    with pytest.raises(LayoutError, match="both"):
        layout_from_dict({**tiny, "goal_idx": np.array([2])})


def test_overcooked_visualizer_shows_frames_and_writes_gifs_headless(tmp_path):
    from jaxmarl.viz.overcooked_visualizer import TILE_PIXELS, OvercookedVisualizer

    env = jaxmarl.make("overcooked", layout="counter_circuit")
    _, state = env.reset(jax.random.PRNGKey(0))
    step = jit(env.step)
    states = [state]
    for t in range(3):
        states.append(
            step(jax.random.PRNGKey(t), states[-1], {"agent_0": jnp.int32(2), "agent_1": jnp.int32(3)})[1]
        )
    viz = OvercookedVisualizer()  # finds the kitchen: the last Overcooked built of this size
    frame = viz.render(env.agent_view_size, states[1], highlight=False)
    expected = np.asarray(env.render(states[1], size=TILE_PIXELS * env.width))
    np.testing.assert_array_equal(frame, expected)
    np.testing.assert_array_equal(viz.fig.axes[0].images[0].get_array(), expected)  # what the window shows
    lit = viz.render(3, states[1])  # highlight (the default): cells within 1 of a cook
    changed = (
        np.any(lit != frame, axis=-1).reshape(env.height, TILE_PIXELS, env.width, TILE_PIXELS).any((1, 3))
    )
    near = np.zeros((env.height, env.width), bool)
    for x, y in np.asarray(states[1].pos):
        near[max(y - 1, 0) : y + 2, max(x - 1, 0) : x + 2] = True
    np.testing.assert_array_equal(changed, near)
    viz.close()
    path = viz.animate(states, env.agent_view_size, filename=tmp_path / "kitchen.gif")
    frames, duration = gif_frames(path)
    assert duration == 500 * len(states) and frames[0].shape == expected.shape  # 2 per second, as JaxMARL's
    with pytest.raises(ValueError, match="no Overcooked kitchen of size"):
        OvercookedVisualizer("cramped_room").render(5, states[0])


# --------------------------------------------------------------------------- Hanabi
@pytest.fixture(scope="module")
def hanabi():
    return jaxmarl.make("hanabi", num_agents=3)


def test_hanabi_reset_from_deck_deals_exactly_that_deck(hanabi):
    from jaxmarl.environments.hanabi import HanabiEnv
    from jaxmarl.environments.hanabi.hanabi import HanabiEnv as ByModule

    assert HanabiEnv is ByModule is type(hanabi)
    env, cfg = hanabi, hanabi.config
    deck = np.asarray(shuffled_deck(jax.random.PRNGKey(3), cfg))
    one_hot = np.eye(cfg.num_cards)[deck].reshape(-1, cfg.num_colors, cfg.num_ranks)
    pairs = np.stack([deck // cfg.num_ranks, deck % cfg.num_ranks], -1)
    obs, state = jit(env.reset_from_deck)(one_hot)
    h = cfg.hand_size
    np.testing.assert_array_equal(state.hands, deck[: 3 * h].reshape(3, h))  # whole hands, in turn
    for other in (env.reset_game_from_deck(deck), env.reset_game_from_deck_of_pairs(pairs)):
        jax.tree.map(np.testing.assert_array_equal, other, state)
    jax.tree.map(np.testing.assert_array_equal, obs, jit(env.get_obs)(state))
    # Player 0 plays slot 1: the next card of the deck arrives in its last slot.
    nxt, reward = jit(env.step_game)(state, 0, h + 1)
    np.testing.assert_array_equal(nxt.hands[0], [*deck[[0, *range(2, h)]], deck[3 * h]])
    assert int(nxt.current_player) == 1 and float(reward) == float(deck[1] % cfg.num_ranks == 0)
    new = env.reset_game(jax.random.PRNGKey(3))
    np.testing.assert_array_equal(new.deck, deck)  # reset_game shuffles as reset does


def test_hanabi_moves_match_our_rules(hanabi):
    env = hanabi
    _, state = env.reset(jax.random.PRNGKey(0))
    step, step_game, legal_moves = jit(env.step), jit(env.step_game), jit(env.get_legal_moves)
    for t in range(6):
        legal = legal_moves(state)
        avail = env.get_avail_actions(state)
        for a in env.agents:
            assert legal[a].dtype == jnp.float32
            np.testing.assert_array_equal(legal[a], avail[a])
        p = int(state.current_player)
        legal_now = np.flatnonzero(np.asarray(avail[env.agents[p]]))
        quiet = [a for a in legal_now if not env.hand_size <= a < 2 * env.hand_size]  # hints, discards
        move = int(legal_now[0] if t == 0 else quiet[t % len(quiet)])  # a play, then hints and discards
        game_state, reward = step_game(state, p, move)
        _, state, rewards, done, _ = step(
            jax.random.PRNGKey(t), state, {a: jnp.int32(move) for a in env.agents}
        )
        jax.tree.map(np.testing.assert_array_equal, game_state, state)
        assert float(reward) == float(rewards["agent_0"])
        assert bool(env.terminal(state)) == bool(done["__all__"]) == bool(state.terminal)
    # step_game plays for the player it is given; an illegal move changes nothing.
    other = (int(state.current_player) + 1) % 3
    moved, _ = step_game(state, other, 0 if int(state.info_tokens) < 8 else env.hand_size)
    assert int(moved.current_player) == (other + 1) % 3 and not np.array_equal(moved.hands, state.hands)
    full = state.replace(info_tokens=jnp.int32(8))  # discarding is illegal with every token
    same, zero = step_game(full, int(state.current_player), 0)
    jax.tree.map(np.testing.assert_array_equal, same, full)
    assert float(zero) == 0.0


def test_hanabi_names_describe_the_moves_and_the_observation(hanabi, capsys):
    env, cfg = hanabi, hanabi.config
    c, r = cfg.num_colors, cfg.num_ranks
    np.testing.assert_array_equal(env.action_set, np.arange(env.num_moves))
    assert env.num_actions == env.num_moves == 31 and env.color_map == list("RYGWB")
    np.testing.assert_array_equal(env.num_cards_of_rank, [3, 2, 2, 2, 1])
    ranges = [env.discard_action_range, env.play_action_range, env.color_action_range, env.rank_action_range]
    np.testing.assert_array_equal(np.concatenate(ranges), np.arange(env.num_moves - 1))
    for uid, text in env.action_encoding.items():  # JaxMARL's notation of describe()
        words = env.describe(uid).split()
        expected = {
            "discard": lambda w: f"D{w[2]}",
            "play": lambda w: f"P{w[2]}",
            "reveal": lambda w: f"H{w[2]} to P{w[-1][1:]} relative",
            "no-op": lambda w: "N",
        }[words[0]](words)
        assert text == expected
    sizes = [
        env.hands_n_feats,
        env.board_n_feats,
        env.discards_n_feats,
        env.last_action_n_feats,
        env.v0_belief_n_feats,
    ]
    assert sum(sizes) == env.obs_size
    assert env.card_to_string(np.eye(c * r)[7].reshape(c, r)) == env.card_to_string(7) == "Y3"
    assert env.card_to_string(np.zeros((c, r))) == env.card_to_string(-1) == ""
    obs, state = env.reset_from_deck(sorted_deck(cfg))
    board = env.get_board_feats(state)
    np.testing.assert_array_equal(
        board, obs["agent_1"][env.hands_n_feats : env.hands_n_feats + env.board_n_feats]
    )
    np.testing.assert_array_equal(env.get_obs(state, state, jnp.int32(0))["agent_2"], obs["agent_2"])
    env.render_obs({"agent_0": obs["agent_0"]})
    printed = capsys.readouterr().out
    assert "Obs for agent_0" in printed and "last action feats" in printed
    assert printed.count("representation of the belief") == 3


def test_hanabi_v0_belief_and_obs_str(hanabi):
    env, cfg = hanabi, hanabi.config
    h, c, r = cfg.hand_size, cfg.num_colors, cfg.num_ranks
    hands = [[0, 0, 0, 1, 1], [4, 10, 10, 10, 11], [5, 5, 5, 6, 6]]  # R1 R1 R1 R2 R2 | R5 G1 G1 G1 G2 | Y...
    dealt = [card for hand in hands for card in hand]
    rest = list(sorted_deck(cfg))
    for card in dealt:
        rest.remove(card)
    state = env.reset_game_from_deck(np.array(dealt + rest))
    hint_green = 2 * h + c * 0 + 2  # reveal green to the next player (player 1)
    state, _ = jit(env.step_game)(state, 0, hint_green)
    belief = np.asarray(env.get_v0_belief_feats(1, state)).reshape(3, h, c * r + c + r)  # seats from player 1
    cards = belief[..., : c * r].reshape(3, h, c, r)
    green = cards[0, 1]  # player 1's slot 1, a hinted green card
    assert green[[0, 1, 3, 4]].sum() == 0 and green[2].sum() == pytest.approx(1.0)
    np.testing.assert_allclose(green[2], np.array([3, 2, 2, 2, 1]) / 10)  # the green cards left
    np.testing.assert_array_equal(belief[0, 1, c * r : c * r + c], np.eye(c)[2])  # colour revealed
    unhinted = cards[0, 0]  # R5: plausible anything but green
    assert unhinted[2].sum() == 0 and unhinted.sum() == pytest.approx(1.0)
    rolled = np.asarray(env.get_v0_belief_feats(0, state)).reshape(3, h, -1)
    np.testing.assert_array_equal(rolled[1], belief[0])  # seat 1 of player 0 is player 1
    text = env.get_obs_str(state)
    lines = text.splitlines()
    assert lines[0] == "Score: 0" and "Information available: 7" in lines
    assert lines[lines.index("Your Hand:") + 2] == "1 Hints: G, Possible: G12345"
    assert "0 Card: R1, Hints: , Possible: RYGWB12345" in lines  # player 0 holds R1 R1 R1 R2 R2
    assert "Last action: HG to P1 relative" in lines and "Cards afected: [1 2 3 4]" in lines
    legal = [env.action_encoding[int(a)] for a in np.flatnonzero(env.legal_moves(state))]
    assert lines[-1] == f"Legal Actions: {legal}"


# --------------------------------------------------------- STORM, Coin Game, Switch Riddle
def test_storm_classes_take_jaxmarl_keywords():
    from jaxmarl.environments.storm import STORM, InTheGrid, InTheGrid_2p, InTheMatrix

    kwargs = {
        "num_inner_steps": 10,
        "num_outer_steps": 3,
        "num_agents": 3,
        "fixed_coin_location": True,
        "payoff_matrix": jnp.array([[[3, 0], [5, 1]], [[3, 5], [0, 1]]]),
        "freeze_penalty": 5,
    }
    for cls in (InTheGrid, InTheGrid_2p, InTheMatrix):
        env = cls(**kwargs)
        assert isinstance(env, STORM) and env.max_steps == 30 and env.num_agents == 3
        assert env.num_actions == env.action_space(env.agents[0]).n == 5
    env = InTheMatrix(grid_size=9, obs_size=7, num_coins=4)
    assert (env.GRID_SIZE, env.OBS_SIZE, env.NUM_COINS) == (9, 7, 4)
    _, state = env.reset(jax.random.PRNGKey(0))
    assert state.coins.shape == (9, 9) and int(jnp.sum(state.coins > 0)) == 2 * env.NUM_COINS


def test_coin_game_and_switch_riddle_names():
    coin = jaxmarl.make("coin_game")
    assert coin.num_actions == coin.action_space("agent_0").n == 5
    env = jaxmarl.make("switch_riddle", num_agents=3)
    assert env.a_to_i == {"agent_0": 0, "agent_1": 1, "agent_2": 2}
    np.testing.assert_array_equal(env.agent_range, np.arange(3))
    assert {v: k for k, v in env.game_actions_idx.items()} == env.game_actions
    _, state = env.reset(jax.random.PRNGKey(0))
    who = env.agents[int(state.in_room)]
    other = {a: jnp.int32(env.game_actions["NOTHING"]) for a in env.agents}
    step = jit(env.step_env)
    _, toggled, _, done, _ = step(
        jax.random.PRNGKey(1), state, {**other, who: jnp.int32(env.game_actions["SWITCH_LIGHT"])}
    )
    assert bool(toggled.bulb) != bool(state.bulb) and not bool(done["__all__"])
    _, _, reward, done, _ = step(
        jax.random.PRNGKey(1), state, {**other, who: jnp.int32(env.game_actions["TELL"])}
    )
    assert bool(done["__all__"]) and float(reward[who]) == env.reward_all_die  # told on day one, too early


# --------------------------------------------------------------------------- MABrax
def test_mabrax_mappings_and_classes():
    from jaxmarl.environments.mabrax import Hopper, MABraxEnv, Walker2d

    env = MABraxEnv("walker2d_2x3", episode_length=50)
    assert env.episode_length == env.max_steps == 50 and env.sys is env.env.sys is env.brax_env.sys
    assert (env.action_repeat, env.auto_reset, env.homogenisation_method) == (1, True, None)
    sizes = {a: env.action_space(a).shape[0] for a in env.agents}
    actions = {a: jnp.arange(1, n + 1) * (10.0**-i) / 100 for i, (a, n) in enumerate(sizes.items())}
    full = env.map_agents_to_global_action(actions)
    for a, idx in env.agent_action_mapping.items():
        np.testing.assert_allclose(full[idx], actions[a])  # each agent drives its entries
    assert sorted(np.concatenate(list(env.agent_action_mapping.values())).tolist()) == list(
        range(full.shape[0])
    )
    global_obs = jnp.arange(env.obs_size, dtype=jnp.float32)
    mapped = env.map_global_obs_to_agents(global_obs)
    for a, idx in env.agent_obs_mapping.items():
        np.testing.assert_array_equal(mapped[a], idx)
        assert mapped[a].shape == env.observation_space(a).shape
        assert [f.obs_index for f in env.observation_features[a]] == idx.tolist()
    assert isinstance(Walker2d(), MABraxEnv) and Hopper().num_agents == 3


# --------------------------------------------------------------------- against JaxMARL
@pytest.mark.oracle
def test_against_jaxmarl_layout_dicts_hanabi_names_and_games(tmp_path):
    games = [(2, 0), (3, 1)]  # (players, seed)
    decks = {}
    for g, (n, seed) in enumerate(games):
        env = jaxmarl.make("hanabi", num_agents=n)
        decks[f"deck_{g}"] = np.asarray(shuffled_deck(jax.random.PRNGKey(seed), env.config))
        decks[f"players_{g}"], decks[f"seed_{g}"] = n, seed
    np.savez(tmp_path / "in.npz", **decks)
    run_oracle(WORKER, tmp_path / "in.npz", tmp_path / "out.json", cwd=tmp_path)
    theirs = json.loads((tmp_path / "out.json").read_text())

    for name, layout in theirs["overcooked"].items():
        ours = overcooked_layouts[name]
        assert set(ours) == set(layout)
        for key, value in layout.items():
            np.testing.assert_array_equal(np.asarray(ours[key]), value, err_msg=f"{name} {key}")
    for key, value in theirs["counter_circuit_grid"].items():
        np.testing.assert_array_equal(layout_grid_to_dict(counter_circuit_grid)[key], value)
    assert set(theirs["overcooked"]) == set(JAXMARL_LAYOUT_NAMES) and len(CLASSIC_LAYOUTS) == 5

    for n, sizes in theirs["hanabi_sizes"].items():
        env = jaxmarl.make("hanabi", num_agents=int(n))
        assert {str(k): v for k, v in env.action_encoding.items()} == sizes["action_encoding"]
        ranges = [
            env.discard_action_range,
            env.play_action_range,
            env.color_action_range,
            env.rank_action_range,
        ]
        assert [np.asarray(x).tolist() for x in ranges] == sizes["ranges"]
        feats = [env.hands_n_feats, env.board_n_feats, env.discards_n_feats, env.last_action_n_feats]
        assert [*feats, env.v0_belief_n_feats] == sizes["feats"]
        assert env.color_map == sizes["color_map"] and env.num_moves == sizes["num_moves"]
        cards = [env.card_to_string(c) for c in np.eye(25).reshape(25, 5, 5)] + [
            env.card_to_string(np.zeros((5, 5)))
        ]
        assert cards == sizes["card_strings"]

    for g, (n, _) in enumerate(games):
        game, env = theirs["games"][g], jaxmarl.make("hanabi", num_agents=n)
        state = env.reset_game_from_deck(decks[f"deck_{g}"])
        step_game, beliefs = jit(env.step_game), jit(jax.vmap(env.get_v0_belief_feats, in_axes=(0, None)))
        legal_moves, board_feats = jit(env.get_legal_moves), jit(env.get_board_feats)
        previous_action = env.noop
        assert len(game["actions"]) == 40  # no game ended early: every move was compared
        if g == 0:  # the texts compared follow hints, plays and discards
            kinds = {env.action_encoding[a][0] for a in game["actions"][: len(game["obs_str"]) - 1]}
            assert kinds == {"H", "P", "D"}
        for t, action in enumerate(game["actions"]):
            where = f"game {g}, move {t}"
            p = int(state.current_player)
            np.testing.assert_array_equal(state.hands, game["hands"][t], err_msg=where)
            np.testing.assert_array_equal(legal_moves(state)[env.agents[p]], game["legal"][t], err_msg=where)
            np.testing.assert_array_equal(board_feats(state), game["board"][t], err_msg=where)
            np.testing.assert_allclose(
                beliefs(jnp.arange(n), state), game["belief"][t], atol=1e-6, err_msg=where
            )
            if g == 0 and t < len(game["obs_str"]):  # JaxMARL's text but its turn counter and discard order
                jaxmarl_text = game["obs_str"][t].splitlines()
                assert jaxmarl_text[:2] == [f"Turn: {t}", ""]
                text = env.get_obs_str(state, action=previous_action)
                assert env.get_obs_str(state) == text  # the last move, read from the state
                ours = text.splitlines()
                at = ours.index(next(line for line in ours if line.startswith("Discards:")))
                assert sorted(ours[at].split()) == sorted(jaxmarl_text[2 + at].split()), where
                assert ours[:at] + ours[at + 1 :] == jaxmarl_text[2 : 2 + at] + jaxmarl_text[3 + at :], where
            state, reward = step_game(state, p, action)
            assert float(reward) == game["reward"][t], where
            previous_action = action
