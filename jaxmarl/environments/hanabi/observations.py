"""HLE's canonical observation encoding, for every player at once.

The canonical encoder of the Hanabi Learning Environment (``CanonicalObservationEncoder``,
observation type "card knowledge") turns one player's view into a flat 0/1 vector of five
sections; seats are relative to the observer (offset 0 is the observer, 1 the next
player, ...):

1. **Hands:** the cards of the other players, offsets ``1 .. p-1``, each slot one-hot over
   ``colour * num_ranks + rank`` (empty slots all zeros), then one bit per seat (offset
   ``0 .. p-1``) set when that hand is missing a card.
2. **Board:** cards left in the deck (thermometer over ``deck_size - p * hand_size``
   bits), each colour's firework (one-hot of its top card's rank, all zeros when none
   has been played), information tokens and life tokens (thermometers).
3. **Discards:** per card, in colour-major order, a thermometer over its copies.
4. **Last action** (the last move of a player, none before the first): the actor's seat,
   move type (play, discard, reveal colour, reveal rank), the hinted seat, the colour
   or rank revealed, which slots the hint touched, the slot played or discarded, that
   card, and whether the play scored and whether it gained an information token.
5. **Card knowledge**, seats ``0 .. p-1``, slot by slot: the cards the hints so far leave
   plausible (the product of plausible colours and plausible ranks, one bit per card),
   then the colour and the rank revealed directly (one-hots).

:func:`observation_layout` names the slices; ``docs/environments/hanabi.md`` tabulates
them for the default game (658 values for 2 players).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.hanabi.types import GameConfig, State

__all__ = ["ObservationEncoder", "observation_layout"]


def observation_layout(config: GameConfig) -> dict[str, slice]:
    """The named slices of the canonical observation, in order; the last stop is its size."""
    n, h, c, r, cr = (
        config.num_agents,
        config.hand_size,
        config.num_colors,
        config.num_ranks,
        config.num_cards,
    )
    sizes = [
        ("hands", (n - 1) * h * cr),
        ("missing_cards", n),
        ("deck", config.deck_size - n * h),
        ("fireworks", cr),
        ("info_tokens", config.max_info_tokens),
        ("life_tokens", config.max_life_tokens),
        ("discards", config.deck_size),
        ("last_player", n),
        ("last_move_type", 4),
        ("last_target", n),
        ("last_color", c),
        ("last_rank", r),
        ("last_reveal_outcome", h),
        ("last_position", h),
        ("last_card", cr),
        ("last_play_outcome", 2),
        ("card_knowledge", n * h * (cr + c + r)),
    ]
    layout, start = {}, 0
    for name, size in sizes:
        layout[name] = slice(start, start + size)
        start += size
    return layout


class ObservationEncoder:
    """Encodes a :class:`State` for every player at once.

    The state is first encoded once, in absolute seats (every hand, every player's
    knowledge, the actor and target of the last move as absolute one-hots), as float32;
    each player's observation is then a fixed selection of that vector, a static index
    table ``(num_agents, obs_size)`` built here (seat ``k`` of observer ``i`` is player
    ``(i + k) % num_agents``; the observer's own cards are left out). One gather of
    float32 values is much faster on CPU than rearranging booleans per observer.
    """

    def __init__(self, config: GameConfig) -> None:
        self.config = config
        n, h, c, r, cr = (
            config.num_agents,
            config.hand_size,
            config.num_colors,
            config.num_ranks,
            config.num_cards,
        )
        self.size = list(observation_layout(config).values())[-1].stop
        # Discard thermometer bit j: card discard_card[j], set when more than discard_k[j] are out.
        copies = np.tile(np.asarray(config.cards_per_rank), config.num_colors)
        self._discard_card = np.repeat(np.arange(config.num_cards), copies).astype(np.int32)
        self._discard_k = np.concatenate([np.arange(k) for k in copies]).astype(np.int32)

        # Offsets of the parts of the absolute vector (see ``absolute``).
        board = (
            config.deck_size - n * h + cr + config.max_info_tokens + config.max_life_tokens + config.deck_size
        )
        knowledge = h * (cr + c + r)
        sizes = {
            "cards": n * h * cr,
            "missing": n,
            "board": board,
            "actor": n,
            "type": 4,
            "target": n,
            "move": c + r + 2 * h + cr + 2,
            "knowledge": n * knowledge,
        }
        start = np.cumsum([0, *sizes.values()])
        at = dict(zip(sizes, start[:-1].tolist(), strict=True))
        rows = []
        for i in range(n):
            seat = (i + np.arange(n)) % n  # seat k of observer i is player seat[k]
            row = [
                *[at["cards"] + p * h * cr + np.arange(h * cr) for p in seat[1:]],
                at["missing"] + seat,
                at["board"] + np.arange(board),
                at["actor"] + seat,
                at["type"] + np.arange(4),
                at["target"] + seat,
                at["move"] + np.arange(sizes["move"]),
                *[at["knowledge"] + p * knowledge + np.arange(knowledge) for p in seat],
            ]
            rows.append(np.concatenate(row))
        self._index = np.stack(rows).astype(np.int32)
        assert self._index.shape == (n, self.size)

    def absolute(self, state: State) -> jax.Array:
        """The state's encoding in absolute seats, float32: every hand, the missing-card
        bits, board and discards, the last move (actor and target one-hot by player),
        every player's card knowledge."""
        cfg = self.config
        n, h, r, cr = cfg.num_agents, cfg.hand_size, cfg.num_ranks, cfg.num_cards
        seats = jnp.arange(n)
        occupied = state.hands >= 0  # (n, h)
        plausible = state.color_plausible[..., :, None] & state.rank_plausible[..., None, :]
        knowledge = jnp.concatenate(
            [plausible.reshape(n, h, cr), state.color_revealed, state.rank_revealed], -1
        )
        parts = [
            (state.hands[..., None] == jnp.arange(cr)).reshape(-1),
            ~jnp.all(occupied, axis=-1),
            jnp.arange(cfg.deck_size - n * h) < cfg.deck_size - state.next_card,
            (jnp.arange(r)[None, :] == state.fireworks[:, None] - 1).reshape(cr),
            jnp.arange(cfg.max_info_tokens) < state.info_tokens,
            jnp.arange(cfg.max_life_tokens) < state.life_tokens,
            state.discards[self._discard_card] > self._discard_k,
            seats == state.last_player,
            state.last_move[:4],
            seats == state.last_target,
            state.last_move[4:],
            (knowledge & occupied[..., None]).reshape(-1),
        ]
        return jnp.concatenate(parts).astype(jnp.float32)

    def encode(self, state: State) -> jax.Array:
        """Every player's observation, float32 ``(num_agents, obs_size)`` (row i: player i)."""
        return self.absolute(state)[self._index]
