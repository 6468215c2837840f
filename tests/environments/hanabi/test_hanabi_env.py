"""Hanabi's construction, deal, spaces, observation layout, rendering and conformance.

HLE's numbers: canonical observations of 658 / 956 / 1041 / 1280 values for 2-5 players
(default game), 20 / 30 / 38 / 48 moves, hands of 5 cards for 2-3 players and 4 for 4-5,
a deck of 50 cards (three 1s, two 2s, 3s and 4s, one 5 per colour) dealt 5 cards to
player 0, then 5 to player 1 (not round robin).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS, jit
from hanabi_testutils import table

import jaxmarl
from jaxmarl.environments.hanabi import Hanabi
from jaxmarl.environments.hanabi.generator import sorted_deck
from jaxmarl.testing import check_env

NON_DEFAULT = {"num_agents": 3, "num_colors": 3, "num_ranks": 4, "hand_size": 3, "max_info_tokens": 4}


@pytest.mark.parametrize(
    ("players", "obs_size", "moves", "hand_size"),
    [(2, 658, 20, 5), (3, 956, 30, 5), (4, 1041, 38, 4), (5, 1280, 48, 4)],
)
def test_sizes_are_hles(players, obs_size, moves, hand_size):
    env = jaxmarl.make("hanabi", num_agents=players)
    assert env.agents == [f"agent_{i}" for i in range(players)]
    assert env.obs_size == obs_size and env.observation_space("agent_0").shape == (obs_size,)
    assert env.num_moves == moves + 1 and env.noop == moves  # the no-op is the last index
    assert env.action_space("agent_1").n == moves + 1
    assert env.hand_size == hand_size and env.deck_size == 50
    assert list(env.obs_layout.values())[-1].stop == obs_size


def test_default_layout_slices():
    layout = {k: (s.start, s.stop) for k, s in Hanabi().obs_layout.items()}
    assert layout["hands"] == (0, 125) and layout["missing_cards"] == (125, 127)
    assert layout["deck"] == (127, 167) and layout["fireworks"] == (167, 192)
    assert layout["discards"] == (203, 253) and layout["last_player"] == (253, 255)
    assert layout["card_knowledge"] == (308, 658)


def test_move_indices_are_hles_uids():
    env = Hanabi()
    names = [env.describe(i) for i in range(env.num_moves)]
    assert names[0] == "discard slot 0" and names[9] == "play slot 4"
    assert names[10] == "reveal color R to player +1" and names[14] == "reveal color B to player +1"
    assert names[15] == "reveal rank 1 to player +1" and names[19] == "reveal rank 5 to player +1"
    assert names[20] == "no-op"
    three = Hanabi(num_agents=3)
    assert (
        three.describe(15) == "reveal color R to player +2"
        and three.describe(29) == "reveal rank 5 to player +2"
    )


def test_reset_deals_a_shuffled_deck_in_hles_order():
    env = Hanabi(num_agents=3)
    keys = jax.random.split(jax.random.PRNGKey(0), 256)
    obs, s = jit(jax.vmap(env.reset))(keys)
    deck, hands = np.asarray(s.deck), np.asarray(s.hands)
    assert np.all(np.sort(deck, axis=1) == np.sort(sorted_deck(env.config)))  # every card once
    assert np.all(hands == deck[:, :15].reshape(256, 3, 5))  # 5 to player 0, then 5 to player 1 ...
    assert np.all(np.asarray(s.next_card) == 15) and len({d.tobytes() for d in deck}) == 256
    # Each position holds each card kind in proportion to its copies (3 of 50 for a 1).
    ones = np.isin(deck, [c * 5 for c in range(5)]).mean(0)
    assert np.all(np.abs(ones - 15 / 50) < 0.12)
    assert np.all(np.asarray(s.info_tokens) == 8) and np.all(np.asarray(s.life_tokens) == 3)
    assert np.all(np.asarray(s.current_player) == 0) and not np.any(s.terminal)
    # At the start a player sees the others' cards, 40 - 5 = 35 cards in the deck, 8 tokens, 3 lives.
    o = np.asarray(obs["agent_0"][0])
    layout = env.obs_layout
    assert o[layout["deck"]].sum() == 35 and o[layout["info_tokens"]].sum() == 8
    assert o[layout["hands"]].sum() == 10 and not o[layout["last_player"]].any()


def test_custom_deck_composition():
    env = Hanabi(num_colors=2, num_ranks=3, cards_per_rank=(2, 2, 2), hand_size=2)
    assert env.deck_size == 12
    assert sorted(sorted_deck(env.config).tolist()) == [0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
    assert env.obs_layout["discards"].stop - env.obs_layout["discards"].start == 12


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_agents": 1}, "num_agents"),
        ({"num_agents": 6}, "num_agents"),
        ({"num_colors": 6}, "num_colors"),
        ({"num_ranks": 0}, "num_ranks"),
        ({"hand_size": 9}, "hand_size"),
        ({"max_life_tokens": 0}, "max_life_tokens"),
        ({"cards_per_rank": (3, 2)}, "cards_per_rank"),
        ({"num_colors": 1, "num_ranks": 1, "hand_size": 2}, "deck has only 3"),
    ],
)
def test_bad_configuration_is_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        Hanabi(**kwargs)


def test_unknown_keyword_names_the_accepted_ones():
    with pytest.raises(TypeError, match="num_colors"):
        jaxmarl.make("hanabi", num_colours=4)


@pytest.mark.parametrize("kwargs", [{"num_agents": 3}, {"num_agents": 4}, {"num_agents": 5}, NON_DEFAULT])
def test_check_env(kwargs):
    # The registered 2-player game is checked with every registered env.
    check_env(jaxmarl.make("hanabi", **kwargs), num_envs=8, num_steps=120, compiler_options=COMPILER_OPTIONS)


def test_returns_are_final_scores():
    """Rewards of a whole game add up to its score (0 when the lives ran out)."""
    env = Hanabi()

    def play(key):
        _, state = env.reset(key)

        def body(carry, key):
            state, ret, over, final = carry
            k1, k2 = jax.random.split(key)
            mask = env.get_avail_actions(state)
            acts = {
                a: jax.random.categorical(jax.random.fold_in(k1, i), jnp.log(mask[a]))
                for i, a in enumerate(env.agents)
            }
            _, new, reward, done, info = env.step(k2, state, acts)
            ret = ret + jnp.where(over, 0.0, reward["agent_0"])
            final = jnp.where(over, final, env.score(info["final_state"]))
            return (new, ret, over | done["__all__"], final), None

        init = (state, jnp.float32(0), jnp.array(False), jnp.int32(-1))
        (_, ret, over, final), _ = jax.lax.scan(body, init, jax.random.split(key, 150))
        return ret, over, final

    ret, over, final = jit(jax.vmap(play))(jax.random.split(jax.random.PRNGKey(1), 64))
    assert np.all(np.asarray(over))
    np.testing.assert_array_equal(np.asarray(ret), np.asarray(final))


def test_global_state_shows_every_card():
    env = Hanabi()
    _, s = env.reset(jax.random.PRNGKey(0))
    g = np.asarray(jit(env.get_global_state)(s))
    assert g.shape == (2 * 658,)
    hands = env.obs_layout["hands"]
    seen = [g[hands][::1].reshape(5, 25).argmax(-1), g[658:][hands].reshape(5, 25).argmax(-1)]
    assert (
        seen[0].tolist() == np.asarray(s.hands[1]).tolist()
        and seen[1].tolist() == np.asarray(s.hands[0]).tolist()
    )


def test_render_and_text_view():
    env = Hanabi()
    s = table(env, ["R1 Y1 G1 W1 B1", "R2 G3 R4 Y5 Y2"], draw="G3", fireworks="R1", info=5, discards="B5")
    img = np.asarray(jit(env.render)(s))
    assert img.dtype == np.uint8 and img.ndim == 3 and img.shape[-1] == 3
    other = np.asarray(jit(lambda s: env.render(s, player=1))(s))
    assert other.shape == img.shape and np.any(other != img)  # player 1 sees player 0's cards
    text = env.render_text(s, player=0)
    assert "XX || XX|RYGWB12345" in text and "R2 || XX|RYGWB12345" in text
    assert "Info tokens: 5" in text and "Fireworks: R1 Y0 G0 W0 B0" in text and "Discards: B5" in text
    assert "R1 ||" in env.render_text(s)  # no viewer: every card shown
