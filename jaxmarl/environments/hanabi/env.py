"""Hanabi: the cooperative card game, move for move as the Hanabi Learning Environment.

Rules as HLE (Bard et al., 2020; ``hanabi_learning_environment`` 0.0.4) implements them,
the JaxMARL paper's appendix B.5 for the API. The ``Hanabi`` class docstring is the full
spec; ``docs/environments/hanabi.md`` adds the action-index table and the observation
layout and lists what differs from JaxMARL 0.2.0.

One move of the current player ``p`` (``step_env``):

- **Play** slot i: the card goes on its colour's firework when it is the next rank
  there; completing a firework (its highest rank) gains an information token (unless at
  the maximum). Otherwise the card is discarded and a life token is lost.
- **Discard** slot i (illegal with all information tokens): gains an information token.
- After a play or discard the later cards move up one slot and, while the deck lasts,
  ``p`` draws a card into the last slot, with no knowledge about it.
- **Reveal** a colour or rank to the player ``o`` seats on (costs an information token;
  illegal without one, or when no card of that colour or rank is in that hand): each of
  that player's cards learns that it has, or has not, that colour or rank.
- The turn passes to ``p + 1``. Once the deck is empty every player makes exactly one
  more move. The game ends then, when the last life token is lost, or when every
  firework is complete.
- The score is the sum of the fireworks, but 0 once the last life token is lost; the
  reward is the change in score (so losing the last life gives minus the score so far).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.hanabi import constants as C
from jaxmarl.environments.hanabi import jaxmarl_api as J
from jaxmarl.environments.hanabi.generator import initial_state, shuffled_deck
from jaxmarl.environments.hanabi.moves import describe_move, move_table
from jaxmarl.environments.hanabi.observations import ObservationEncoder, observation_layout
from jaxmarl.environments.hanabi.types import GameConfig, State
from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["Hanabi"]


def _check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
        raise ValueError(f"Hanabi: {name} must be an integer >= {low}, got {value!r}")
    if high is not None and value > high:
        raise ValueError(f"Hanabi: {name} must be an integer from {low} to {high}, got {value!r}")
    return int(value)


def _make_config(
    num_agents: Any,
    num_colors: Any,
    num_ranks: Any,
    hand_size: Any,
    max_info_tokens: Any,
    max_life_tokens: Any,
    cards_per_rank: Any,
) -> GameConfig:
    n = _check_int("num_agents", num_agents, C.MIN_PLAYERS, C.MAX_PLAYERS)
    c = _check_int("num_colors", num_colors, 1, C.MAX_COLORS)
    r = _check_int("num_ranks", num_ranks, 1, C.MAX_RANKS)
    h = (
        C.default_hand_size(n)
        if hand_size is None
        else _check_int("hand_size", hand_size, 1, C.MAX_HAND_SIZE)
    )
    if cards_per_rank is None:
        counts = C.default_cards_per_rank(r)
    else:
        counts = tuple(cards_per_rank)
        if len(counts) != r:
            raise ValueError(
                f"Hanabi: cards_per_rank must give the copies of each of the {r} ranks, "
                f"got {cards_per_rank!r}"
            )
        counts = tuple(_check_int(f"cards_per_rank[{i}]", k, 1) for i, k in enumerate(counts))
    config = GameConfig(
        num_agents=n,
        num_colors=c,
        num_ranks=r,
        hand_size=h,
        max_info_tokens=_check_int("max_info_tokens", max_info_tokens, 0),
        max_life_tokens=_check_int("max_life_tokens", max_life_tokens, 1),
        cards_per_rank=counts,
    )
    if n * h > config.deck_size:
        raise ValueError(
            f"Hanabi: {n} hands of {h} cards need {n * h} cards but the deck has only "
            f"{config.deck_size}; use a smaller hand_size or more colours, ranks or copies"
        )
    return config


class Hanabi(MultiAgentEnv):
    """Hanabi for 2 to 5 players, equal to HLE move for move and bit for bit.

    Players see every hand but their own and build one firework per colour by playing
    its cards in rank order; hints (which cost information tokens) are the only way to
    learn about one's own cards. The rules are in the module docstring.

    - **Agents:** ``agent_0 ... agent_{N-1}``; ``agent_0`` moves first (HLE's default).
    - **Turns:** every agent passes an action each step; only the current player's
      counts. ``get_avail_actions`` gives the current player its legal moves and every
      other agent the single no-op.
    - **Actions:** ``Discrete(num_moves + 1)``: indices ``0 .. num_moves - 1`` are HLE's
      move uids (2 players, default game: 0-4 discard slot i, 5-9 play slot i, 10-14
      reveal colour R, Y, G, W, B, 15-19 reveal rank 1-5, both to the next player);
      index ``num_moves`` (20) is the no-op. ``describe(uid)`` names any index. An
      illegal action of the current player (a no-op included) changes nothing: the
      state stays, the reward is 0 and the same player is still to move.
    - **Observation:** HLE's canonical encoding of the player's view, float32 0/1,
      658 values for 2 players with the default game; ``obs_layout`` names the slices
      (see :mod:`jaxmarl.environments.hanabi.observations`).
    - **Reward:** the change in HLE's score (the sum of the fireworks, 0 once the last
      life is lost), the same for every agent; an episode's return is its final score.
    - **Episode:** ends when the game does (``done`` for every agent); there is no time
      limit, the game is finite (at most ``2 * deck_size + max_info_tokens + num_colors``
      moves: each play or discard uses a card, each hint a token).
    - **State:** :class:`jaxmarl.environments.hanabi.State`; ``state_from_deck`` starts
      a game from a chosen deck order.

    Example::

        env = Hanabi(num_agents=3)
        obs, state = env.reset(jax.random.PRNGKey(0))
        legal = env.get_avail_actions(state)  # agent_0 moves first
        actions = {a: jnp.argmax(legal[a]) for a in env.agents}
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)

    Args:
        num_agents: players, 2 to 5.
        num_colors: colours, 1 to 5 (5: red, yellow, green, white, blue).
        num_ranks: ranks, 1 to 5.
        hand_size: cards per hand; default 5 for 2-3 players, 4 for 4-5 (HLE's rule).
        max_info_tokens: information tokens (8).
        max_life_tokens: life tokens (3).
        cards_per_rank: copies of each card of one colour, by rank; default HLE's
            (three 1s, two of every middle rank, one of the highest). HLE itself only
            plays the default deck.

    Raises:
        ValueError: for a value out of range, or hands that need more cards than the deck.
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {"score": "last"}  # HLE's score at the end of the game

    def __init__(
        self,
        num_agents: int = 2,
        num_colors: int = C.NUM_COLORS,
        num_ranks: int = C.NUM_RANKS,
        hand_size: int | None = None,
        max_info_tokens: int = C.MAX_INFO_TOKENS,
        max_life_tokens: int = C.MAX_LIFE_TOKENS,
        cards_per_rank: tuple[int, ...] | list[int] | None = None,
    ) -> None:
        cfg = _make_config(
            num_agents, num_colors, num_ranks, hand_size, max_info_tokens, max_life_tokens, cards_per_rank
        )
        super().__init__(num_agents=cfg.num_agents)
        self.config = cfg
        self.num_colors, self.num_ranks, self.hand_size = cfg.num_colors, cfg.num_ranks, cfg.hand_size
        self.max_info_tokens, self.max_life_tokens = cfg.max_info_tokens, cfg.max_life_tokens
        self.cards_per_rank = cfg.cards_per_rank
        self.deck_size = cfg.deck_size
        self.agents = [f"agent_{i}" for i in range(cfg.num_agents)]
        self.num_moves = cfg.num_moves + 1  # HLE's moves and the no-op
        self.noop = cfg.num_moves
        self.moves = move_table(cfg)
        self.encoder = ObservationEncoder(cfg)
        self.obs_layout = observation_layout(cfg)
        self.obs_size = self.encoder.size
        self.observation_spaces = {a: Box(0.0, 1.0, (self.obs_size,)) for a in self.agents}
        self.action_spaces = {a: Discrete(self.num_moves) for a in self.agents}

    # ------------------------------------------------------ JaxMARL 0.2.0's names
    # JaxMARL's HanabiEnv methods on our state (jaxmarl_api.py, which says what differs).
    action_set = property(J.action_set)
    action_encoding = property(J.action_encoding)
    agent_range = property(J.agent_range)
    color_map = property(J.color_map)
    num_actions = property(J.num_actions)
    num_cards_of_rank = property(J.num_cards_of_rank)
    discard_action_range = property(J.discard_action_range)
    play_action_range = property(J.play_action_range)
    color_action_range = property(J.color_action_range)
    rank_action_range = property(J.rank_action_range)
    hands_n_feats = property(J.hands_n_feats)
    board_n_feats = property(J.board_n_feats)
    discards_n_feats = property(J.discards_n_feats)
    last_action_n_feats = property(J.last_action_n_feats)
    v0_belief_n_feats = property(J.v0_belief_n_feats)
    get_legal_moves = J.get_legal_moves
    terminal = J.terminal
    reset_game = J.reset_game
    reset_game_from_deck = J.reset_game_from_deck
    reset_game_from_deck_of_pairs = J.reset_game_from_deck_of_pairs
    reset_from_deck = J.reset_from_deck
    reset_from_deck_of_pairs = J.reset_from_deck_of_pairs
    step_game = J.step_game
    get_board_feats = J.get_board_feats
    get_v0_belief_feats = J.get_v0_belief_feats
    card_to_string = J.card_to_string
    render_obs = J.render_obs
    get_obs_str = J.get_obs_str

    def describe(self, action: int) -> str:
        """What action index ``action`` does, e.g. ``"reveal rank 3 to player +1"``."""
        return describe_move(self.config, int(action))

    # ------------------------------------------------------------------ episodes
    def state_from_deck(self, deck: jax.Array) -> State:
        """The start of a game dealt from ``deck`` (int32 ``(deck_size,)``, a permutation
        of :func:`jaxmarl.environments.hanabi.generator.sorted_deck`), in HLE's deal order."""
        return initial_state(deck, self.config)

    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        state = initial_state(shuffled_deck(key, self.config), self.config)
        return self.get_obs(state), state

    # --------------------------------------------------------------------- rules
    def legal_moves(self, state: State) -> jax.Array:
        """The current player's legal moves, bool ``(num_moves - 1,)`` (HLE's uids, no no-op)."""
        cfg = self.config
        n, c, r = cfg.num_agents, cfg.num_colors, cfg.num_ranks
        p = state.current_player
        occupied = state.hands >= 0
        colour = jnp.where(occupied, state.hands // r, -1)
        rank = jnp.where(occupied, state.hands % r, -1)
        has_colour = jnp.any(colour[..., None] == jnp.arange(c), axis=1)  # (n, c)
        has_rank = jnp.any(rank[..., None] == jnp.arange(r), axis=1)  # (n, r)
        others = (p + jnp.arange(1, n)) % n
        own = occupied[p]
        can_hint = state.info_tokens > 0
        return jnp.concatenate(
            [
                own & (state.info_tokens < cfg.max_info_tokens),
                own,
                has_colour[others].reshape(-1) & can_hint,
                has_rank[others].reshape(-1) & can_hint,
            ]
        )

    def score(self, state: State) -> jax.Array:
        """HLE's score: the sum of the fireworks, 0 once the last life is lost; int32 ``()``."""
        return jnp.where(state.life_tokens > 0, jnp.sum(state.fireworks), 0)

    def _apply(self, state: State, a: jax.Array) -> State:
        """The state after the current player makes the legal move ``a``."""
        cfg = self.config
        n, h, c, r, cr = cfg.num_agents, cfg.hand_size, cfg.num_colors, cfg.num_ranks, cfg.num_cards
        t = self.moves
        kind, slot = jnp.asarray(t.move_type)[a], jnp.asarray(t.slot)[a]
        colour, rank = jnp.asarray(t.color)[a], jnp.asarray(t.rank)[a]
        is_play, is_discard = kind == C.PLAY, kind == C.DISCARD
        is_colour, is_rank = kind == C.REVEAL_COLOR, kind == C.REVEAL_RANK
        is_hint, removes = is_colour | is_rank, is_play | is_discard
        p = state.current_player
        seats = jnp.arange(n)

        # Play or discard: the card, its effect on the board.
        card = state.hands[p, slot]
        card_colour, card_rank = card // r, card % r
        scored = is_play & (state.fireworks[card_colour] == card_rank)
        fireworks = state.fireworks + (scored & (jnp.arange(c) == card_colour))
        completed = scored & (fireworks[card_colour] == r)
        gained = (is_discard | completed) & (state.info_tokens < cfg.max_info_tokens)
        discards = state.discards + (removes & ~scored & (jnp.arange(cr) == card))

        # The hand closes the gap; the drawn card (if any) goes to the last slot.
        deck_left = state.next_card < cfg.deck_size
        drawn = jnp.where(deck_left, state.deck[jnp.minimum(state.next_card, cfg.deck_size - 1)], C.EMPTY)
        source = jnp.arange(h) + (jnp.arange(h) >= slot)  # slot j takes padded slot source[j]
        mine = (removes & (seats == p))[:, None]

        def close_gap(x: jax.Array, fresh: Any) -> jax.Array:
            pad = jnp.broadcast_to(jnp.asarray(fresh, x.dtype), (n, 1, *x.shape[2:]))
            shifted = jnp.concatenate([x, pad], axis=1)[:, source]
            return jnp.where(mine.reshape(n, 1, *([1] * (x.ndim - 2))), shifted, x)

        hands = close_gap(state.hands[..., None], drawn)[..., 0]
        colour_plausible = close_gap(state.color_plausible, True)
        rank_plausible = close_gap(state.rank_plausible, True)
        colour_revealed = close_gap(state.color_revealed, False)
        rank_revealed = close_gap(state.rank_revealed, False)

        # Hints: every card of the target learns whether it has the colour / rank.
        target = (p + jnp.asarray(t.target_offset)[a]) % n
        occupied = state.hands >= 0
        colour_oh, rank_oh = jnp.arange(c) == colour, jnp.arange(r) == rank
        touched_colour = occupied & (state.hands // r == colour)
        touched_rank = occupied & (state.hands % r == rank)
        hinted = (seats == target)[:, None, None]
        by_colour, by_rank = hinted & is_colour, hinted & is_rank
        yes_c = touched_colour[..., None]
        colour_plausible = jnp.where(
            by_colour, jnp.where(yes_c, colour_oh, colour_plausible & ~colour_oh), colour_plausible
        )
        colour_revealed = jnp.where(by_colour & yes_c, colour_oh, colour_revealed)
        yes_r = touched_rank[..., None]
        rank_plausible = jnp.where(
            by_rank, jnp.where(yes_r, rank_oh, rank_plausible & ~rank_oh), rank_plausible
        )
        rank_revealed = jnp.where(by_rank & yes_r, rank_oh, rank_revealed)
        touched = jnp.where(is_colour, touched_colour[target], touched_rank[target])

        last_move = jnp.concatenate(
            [
                jnp.stack([is_play, is_discard, is_colour, is_rank]),
                is_colour & colour_oh,
                is_rank & rank_oh,
                is_hint & touched,
                removes & (jnp.arange(h) == slot),
                removes & (jnp.arange(cr) == card),
                jnp.stack([scored, is_play & gained]),
            ]
        )
        life = state.life_tokens - (is_play & ~scored)
        turns_to_play = state.turns_to_play - ~deck_left
        terminal = (life < 1) | (jnp.sum(fireworks) >= cfg.max_score) | (turns_to_play <= 0)
        return State(
            deck=state.deck,
            next_card=state.next_card + (removes & deck_left),
            hands=hands,
            color_plausible=colour_plausible,
            rank_plausible=rank_plausible,
            color_revealed=colour_revealed,
            rank_revealed=rank_revealed,
            fireworks=fireworks,
            info_tokens=state.info_tokens + gained - is_hint,
            life_tokens=life,
            discards=discards,
            current_player=(p + 1) % n,
            turns_to_play=turns_to_play,
            last_player=p,
            last_target=jnp.where(is_hint, target, C.EMPTY),
            last_move=last_move,
            terminal=terminal,
        )

    def noop_action(self, agent: str) -> int:
        """the no-op move: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        del agent
        return self.noop

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        del key  # the deck order was drawn at reset
        acts = jnp.stack([jnp.asarray(actions[a]) for a in self.agents]).astype(jnp.int32)
        a = jnp.clip(acts[state.current_player], 0, self.noop)
        legal = jnp.append(self.legal_moves(state), False)[a]
        moved = self._apply(state, a)
        new_state = jax.tree.map(lambda x, y: jnp.where(legal, x, y), moved, state)
        reward = (self.score(new_state) - self.score(state)).astype(jnp.float32)
        obs = self.get_obs(new_state)
        rewards = {agent: reward for agent in self.agents}
        terminated = {agent: new_state.terminal for agent in self.agents}
        terminated["__all__"] = new_state.terminal
        metrics = {"score": self.score(new_state).astype(jnp.float32)}
        return obs, new_state, rewards, terminated, {"metrics": metrics}

    # ------------------------------------------------------------ observations
    def get_obs(self, state: State, old_state: Any = None, action: Any = None) -> dict[str, jax.Array]:
        """Every agent's observation. ``old_state`` and ``action`` (JaxMARL's signature,
        ``get_obs(new_state, old_state, action)``) are ignored: the state records the
        last move."""
        del old_state, action
        obs = self.encoder.encode(state)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_avail_actions(self, state: State) -> dict[str, jax.Array]:
        """Legal actions, bool ``(num_moves,)`` per agent: the current player's legal
        moves (its no-op false), the no-op alone for everyone else."""
        legal = jnp.append(self.legal_moves(state), False)
        noop = jnp.arange(self.num_moves) == self.noop
        current = jnp.arange(self.num_agents) == state.current_player
        masks = jnp.where(current[:, None], legal[None, :], noop[None, :])
        return {a: masks[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """Every player's observation concatenated, float32 ``(num_agents * obs_size,)``:
        together they show every card, and each player's knowledge."""
        return self.encoder.encode(state).reshape(-1)

    def render(self, state: State, player: int = 0, size: int = 360) -> jax.Array:
        """The table from ``player``'s view as an RGB image, uint8 ``(H, W, 3)``; see
        :func:`jaxmarl.environments.hanabi.viewer.render_table`.

        Args:
            state: the state.
            player: the viewer (its own cards are hidden), an int or int32 scalar.
            size: the image's longer side in pixels, a Python ``int`` fixed at trace time.
                The table is laid out in units (89 wide and 64 high for 2 players, 14
                higher per extra player); with ``L`` units on the longer side each unit
                gets ``size // L`` whole pixels, so the image may be up to ``L - 1``
                pixels short of ``size`` (the default draws 4 pixels per unit,
                ``(256, 356, 3)`` for 2 players). ``ValueError`` unless ``size >= L``.
        """
        from jaxmarl.environments.hanabi.viewer import render_table

        return render_table(state, self.config, player, size)

    def render_text(self, state: State, player: int | None = None) -> str:
        """The table as text, from ``player``'s view (``None``: every card shown); see
        :func:`jaxmarl.environments.hanabi.viewer.table_text`."""
        from jaxmarl.environments.hanabi.viewer import table_text

        return table_text(state, self.config, player)
