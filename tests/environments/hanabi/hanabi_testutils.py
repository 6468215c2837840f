"""Hand-built Hanabi tables for rule tests.

Cards are written as HLE writes them: a colour letter (R Y G W B) and a rank from 1, e.g.
``"R1 Y5"``. ``table(...)`` builds a state from hands, the draw pile and the board; only
what a test names differs from a fresh game.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from fast_compile import jit

from jaxmarl.environments.hanabi import Hanabi, State
from jaxmarl.environments.hanabi.generator import sorted_deck

COLORS = "RYGWB"


def card(text: str, num_ranks: int = 5) -> int:
    """Card id of ``"R3"``."""
    return COLORS.index(text[0]) * num_ranks + int(text[1:]) - 1


def cards(text: str, num_ranks: int = 5) -> list[int]:
    return [card(t, num_ranks) for t in text.split()]


def table(
    env: Hanabi,
    hands: list[str],
    draw: str = "",
    fireworks: str = "",
    info: int | None = None,
    life: int | None = None,
    current: int = 0,
    discards: str = "",
) -> State:
    """A state with these ``hands`` (one string per player; fewer cards than the hand size
    leave empty slots at the end), ``draw`` (the draw pile, next card first), fireworks
    (e.g. ``"R2 G5"``: two red and five green cards played), tokens, current player and
    discards."""
    r = env.num_ranks
    state = env.state_from_deck(jnp.asarray(sorted_deck(env.config)))
    held = np.full((env.num_agents, env.hand_size), -1, np.int32)
    for p, hand in enumerate(hands):
        row = cards(hand, r)
        held[p, : len(row)] = row
    pile = cards(draw, r)
    deck = np.asarray(sorted_deck(env.config)).copy()
    deck[len(deck) - len(pile) :] = pile
    played = np.zeros(env.num_colors, np.int32)
    for f in fireworks.split():
        played[COLORS.index(f[0])] = int(f[1:])
    out = np.zeros(env.num_colors * r, np.int32)
    for c in cards(discards, r):
        out[c] += 1
    return state.replace(
        deck=jnp.asarray(deck),
        next_card=jnp.int32(len(deck) - len(pile)),
        hands=jnp.asarray(held),
        fireworks=jnp.asarray(played),
        info_tokens=jnp.int32(env.max_info_tokens if info is None else info),
        life_tokens=jnp.int32(env.max_life_tokens if life is None else life),
        current_player=jnp.int32(current),
        discards=jnp.asarray(out),
    )


class Stepper:
    """Jitted ``step_env`` and ``get_avail_actions`` of one env (compiled once)."""

    def __init__(self, env: Hanabi) -> None:
        self.env = env
        self._step = jit(env.step_env)
        self._avail = jit(env.get_avail_actions)

    def __call__(self, state: State, action: int) -> tuple[State, float, bool]:
        """The current player makes ``action`` (the others pass the no-op); returns
        ``(state, reward, done)``."""
        env = self.env
        p = int(state.current_player)
        actions = {a: jnp.int32(action if i == p else env.noop) for i, a in enumerate(env.agents)}
        _, new, reward, done, _ = self._step(jax.random.PRNGKey(0), state, actions)
        assert all(float(reward[a]) == float(reward[env.agents[0]]) for a in env.agents)
        assert all(bool(done[a]) == bool(done["__all__"]) for a in env.agents)
        return new, float(reward[env.agents[0]]), bool(done["__all__"])

    def legal(self, state: State) -> np.ndarray:
        """Legal action indices of the current player."""
        masks = self._avail(state)
        return np.flatnonzero(np.asarray(masks[self.env.agents[int(state.current_player)]]))


def hand(state: State, player: int, num_ranks: int = 5) -> str:
    """A player's hand as text (``"R1 Y5"``)."""
    return " ".join(
        f"{COLORS[c // num_ranks]}{c % num_ranks + 1}" for c in np.asarray(state.hands[player]) if c >= 0
    )
