"""Overcooked: two cooks make and serve onion soup (Carroll et al., 2019).

Rules are those of overcooked-ai 1.1.0 (``OvercookedGridworld.get_state_transition``),
transition for transition, with one switch: when cooking starts. The ``Overcooked``
class docstring is the full spec; ``docs/environments/overcooked.md`` adds the layouts,
the channel table and what differs from JaxMARL 0.2.0.

One transition (``step_env``):

1. **Interactions**, cook 0's first, then cook 1's on the kitchen cook 0 left (both
   may face the same counter or pot). A cook that interacts acts on the cell it faces:

   - counter: puts down what it holds if the counter is free; picks up what lies
     there if its hands are empty;
   - onion / dish dispenser: takes an onion / a dish if its hands are empty;
   - pot: adds a held onion if the pot has not started cooking and holds fewer than
     three; with a dish, takes a ready soup out of the pot (the dish becomes the soup);
     with empty hands, under the interact rule, starts cooking a pot holding one to
     three onions (overcooked-ai 1.1.0);
   - serving counter: delivers a held soup, worth 20 for a three-onion soup and 0
     for a smaller one.

   Under the automatic rule (the 2019 paper's, and JaxMARL's) the third onion starts
   the cooking and an empty-handed interact on a pot does nothing.
2. **Moves**: a move action turns the cook that way and moves it one cell if that cell
   is floor; stay and interact change nothing. If the two cooks would end on the same
   cell or swap cells, neither moves (both still turn).
3. **Cooking**: every pot that is cooking advances its tick by one (a pot that started
   this step is at tick 1 after it); at tick 20 the soup is ready.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.overcooked import constants as C
from jaxmarl.environments.overcooked.generator import random_state, standard_start
from jaxmarl.environments.overcooked.layouts import Layout, get_layout
from jaxmarl.environments.overcooked.observations import encode, observation_bounds
from jaxmarl.environments.overcooked.types import State
from jaxmarl.environments.spaces import Box, Discrete

__all__ = ["COOKING_RULES", "Overcooked"]

COOKING_RULES = ("auto", "interact")


class _Outcome(NamedTuple):
    """What one cook's interaction leaves: its hand and the cell it faces, its rewards."""

    hand: jax.Array
    hand_onions: jax.Array
    item: jax.Array
    onions: jax.Array
    tick: jax.Array
    sparse: jax.Array
    shaped: jax.Array


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"Overcooked: {name} must be True or False, got {value!r}")
    return bool(value)


class Overcooked(MultiAgentEnv):
    """Two cooks share a kitchen and are paid for every onion soup they serve.

    Soup takes three onions in a pot, 20 steps of cooking, a dish to carry it and a trip
    to the serving counter. The transition rules are in the module docstring; they are
    overcooked-ai 1.1.0's, with the cooking rule as a switch.

    - **Agents:** ``agent_0`` (cook ``1`` of the layout) and ``agent_1`` (cook ``2``).
    - **Actions:** ``Discrete(6)``: ``0`` north, ``1`` south, ``2`` east, ``3`` west,
      ``4`` stay, ``5`` interact (overcooked-ai's action indices). Every action is
      always legal.
    - **Observation:** uint8 ``(height, width, 26)``, overcooked-ai's lossless state
      encoding from the cook's own perspective (its own position and facing in channels
      0 and 2-5, the other cook's in 1 and 6-9); see ``observations.py`` and the docs'
      channel table. The ``Box`` bounds are exact per cell and channel.
    - **Reward:** the sparse delivery reward, shared: both cooks get 20 for each
      three-onion soup either of them serves. ``info["shaped_reward"]`` holds each
      cook's shaped reward of the step (onion into a pot 3, useful dish pickup 3, soup
      pickup 5; a dish pickup is useful when no dish lies on a counter and the cooks
      hold fewer dishes than there are pots cooking, ready or partly filled at the start
      of the step), ``info["sparse_reward"]`` each cook's own delivery reward. Training
      scripts add the shaped reward with an annealed coefficient
      (``REW_SHAPING_HORIZON`` in ``baselines/ppo.py``).
    - **Episode:** ``max_steps`` steps (400), a time limit: ``done`` and
      ``info["truncated"]`` are true on the last step, never before.
    - **State:** :class:`jaxmarl.environments.overcooked.State`.

    Example::

        env = Overcooked(layout="cramped_room", cooking="interact")
        obs, state = env.reset(jax.random.PRNGKey(0))
        actions = {"agent_0": jnp.int32(5), "agent_1": jnp.int32(4)}  # interact, stay
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)

    Args:
        layout: a classic layout's name (``cramped_room``, ``asymmetric_advantages``,
            ``coordination_ring``, ``forced_coordination``, ``counter_circuit``), an
            ASCII grid (see ``layouts.py``), a parsed ``Layout`` or a JaxMARL layout
            dict (``overcooked_layouts[...]``, ``layout_grid_to_dict``).
        cooking: ``"auto"`` (default): a pot starts cooking when its third onion goes in
            (Carroll et al., 2019; JaxMARL); ``"interact"``: a cook with empty hands must
            interact with the pot to start it, which also works with one or two onions
            (overcooked-ai 1.1.0).
        random_reset: start every episode from a random reachable state (cooks anywhere
            in their part of the kitchen, holding random items, random counters and
            pots; see ``generator.py``) instead of the layout's start.
        random_orientation: at the layout's start, face each cook a random way (JaxMARL's
            reset, the default) or north (overcooked-ai's standard start state).
        max_steps: the episode's length, a time limit (400).

    Raises:
        LayoutError: for an unknown layout name or a malformed ASCII layout.
        ValueError: for another bad keyword.
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {"deliveries": "sum"}  # soups served in the episode
    # JaxMARL 0.2.0's padding of its map, the argument of OvercookedVisualizer.render;
    # it has no effect here (each cook observes the whole kitchen, as in JaxMARL).
    agent_view_size: ClassVar[int] = 5
    # The most recent layout of each size, for OvercookedVisualizer (JaxMARL's takes
    # states alone, which do not hold the kitchen's terrain).
    recent_layouts: ClassVar[dict[tuple[int, int], Layout]] = {}

    def __init__(
        self,
        layout: str | Layout | Mapping[str, Any] = "cramped_room",
        cooking: str = "auto",
        random_reset: bool = False,
        random_orientation: bool = True,
        max_steps: int = 400,
    ) -> None:
        self.layout = get_layout(layout)
        if cooking not in COOKING_RULES:
            raise ValueError(f"Overcooked: cooking must be one of {COOKING_RULES}, got {cooking!r}")
        self.cooking = cooking
        self.interact_to_cook = cooking == "interact"
        self.random_reset = _check_bool("random_reset", random_reset)
        self.random_orientation = _check_bool("random_orientation", random_orientation)
        if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError(f"Overcooked: max_steps must be an integer >= 1, got {max_steps!r}")
        super().__init__(num_agents=2)
        self.agents = ["agent_0", "agent_1"]
        self.max_steps = self._horizon = int(max_steps)
        self.height, self.width = self.layout.height, self.layout.width
        Overcooked.recent_layouts[(self.height, self.width)] = self.layout

        # Static tables, folded into the compiled step.
        terrain = self.layout.terrain.reshape(-1)
        self._terrain = terrain
        self._floor = terrain == C.FLOOR
        self._pots = terrain == C.POT
        self._offset = (C.DIR_TO_VEC[:, 1] * self.width + C.DIR_TO_VEC[:, 0]).astype(np.int32)
        self._move_offset = np.append(self._offset, [0, 0]).astype(np.int32)  # per action

        shape = (self.height, self.width, C.NUM_CHANNELS)
        self.observation_spaces = {}
        for i, agent in enumerate(self.agents):
            low, high = observation_bounds(self.layout, i)
            self.observation_spaces[agent] = Box(low, high, shape, dtype=jnp.uint8)
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    # ------------------------------------------------------ JaxMARL 0.2.0's names
    @property
    def num_actions(self) -> int:
        """The number of actions, 6."""
        return C.NUM_ACTIONS

    @property
    def action_set(self) -> jax.Array:
        """The action ids, ``0 .. 5`` (north, south, east, west, stay, interact)."""
        return jnp.arange(C.NUM_ACTIONS)

    @property
    def obs_shape(self) -> tuple[int, int, int]:
        """The shape of an observation, ``(height, width, 26)`` (JaxMARL's declared
        ``(width, height, 26)``, but its observations were ``(height, width, 26)`` too)."""
        return (self.height, self.width, C.NUM_CHANNELS)

    def is_terminal(self, state: State) -> jax.Array:
        """Whether ``state`` is at the time limit (the only way an episode ends)."""
        return state.step >= self._horizon

    # ------------------------------------------------------------------ episodes
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        if self.random_reset:
            state = random_state(self.layout, key, self.interact_to_cook)
        else:
            state = standard_start(self.layout, key, self.random_orientation)
        return self.get_obs(state), state

    # --------------------------------------------------------------------- rules
    def _interact(
        self,
        kind: jax.Array,
        go: jax.Array,
        hand: jax.Array,
        hand_onions: jax.Array,
        item: jax.Array,
        pot_onions: jax.Array,
        pot_tick: jax.Array,
        counter_dishes: jax.Array,
        held_dishes: jax.Array,
        busy_pots: jax.Array,
    ) -> _Outcome:
        """One cook's interaction with the cell it faces (of terrain ``kind``, holding
        ``item``, ``pot_onions`` and ``pot_tick``); ``go``: whether it interacts.
        ``counter_dishes`` and ``held_dishes`` count dishes on counters and in hands now,
        ``busy_pots`` the pots cooking, ready or partly filled before anyone acted."""
        free_hands = hand == C.NOTHING
        at_counter = go & (kind == C.COUNTER)
        put_down = at_counter & ~free_hands & (item == C.NOTHING)
        pick_up = at_counter & free_hands & (item != C.NOTHING)
        take_onion = go & (kind == C.ONION_DISPENSER) & free_hands
        take_dish = go & (kind == C.DISH_DISPENSER) & free_hands
        at_pot = go & (kind == C.POT)
        pot_idle = pot_tick < 0
        add_onion = at_pot & (hand == C.ONION) & pot_idle & (pot_onions < C.MAX_ONIONS)
        serve_up = at_pot & (hand == C.DISH) & (pot_tick >= C.COOK_TIME)
        if self.interact_to_cook:
            start = at_pot & free_hands & pot_idle & (pot_onions > 0)
        else:
            start = add_onion & (pot_onions + 1 == C.MAX_ONIONS)
        deliver = go & (kind == C.SERVING) & (hand == C.SOUP)
        useful_dish = (counter_dishes == 0) & (held_dishes < busy_pots)
        empties = put_down | add_onion | deliver
        new_hand = jnp.where(empties, C.NOTHING, hand)
        new_hand = jnp.where(pick_up, item, new_hand)
        new_hand = jnp.where(take_onion, C.ONION, new_hand)
        new_hand = jnp.where(take_dish, C.DISH, new_hand)
        new_hand = jnp.where(serve_up, C.SOUP, new_hand)
        new_hand_onions = jnp.where(put_down | deliver, 0, hand_onions)
        new_hand_onions = jnp.where(pick_up | serve_up, pot_onions, new_hand_onions)
        new_item = jnp.where(put_down, hand, jnp.where(pick_up, C.NOTHING, item))
        new_onions = jnp.where(put_down, hand_onions, pot_onions)
        new_onions = jnp.where(pick_up | serve_up, 0, new_onions)
        new_onions = jnp.where(add_onion, pot_onions + 1, new_onions)
        new_tick = jnp.where(serve_up, C.IDLE, jnp.where(start, 0, pot_tick))
        sparse = jnp.where(deliver & (hand_onions == C.MAX_ONIONS), C.DELIVERY_REWARD, 0.0)
        shaped = (
            C.PLACEMENT_IN_POT_REWARD * add_onion
            + C.SOUP_PICKUP_REWARD * serve_up
            + C.DISH_PICKUP_REWARD * (take_dish & useful_dish)
        )
        return _Outcome(new_hand, new_hand_onions, new_item, new_onions, new_tick, sparse, shaped)

    def transition(self, state: State, actions: jax.Array) -> tuple[State, jax.Array, jax.Array]:
        """One transition of the rules, without time limit or observations.

        Args:
            state: the state.
            actions: both cooks' actions, int ``(2,)``.

        Returns:
            ``(next_state, sparse, shaped)``: each cook's own delivery reward and shaped
            reward of the step, float32 ``(2,)``.
        """
        h, w = self.height, self.width
        n = h * w
        act = jnp.asarray(actions, jnp.int32)
        terrain = jnp.asarray(self._terrain)
        pots = jnp.asarray(self._pots)
        cell = state.pos[:, 1] * w + state.pos[:, 0]
        target = cell + jnp.asarray(self._offset)[state.dir]  # the cell each cook faces
        items = state.items.reshape(n)
        onions = state.onions.reshape(n)
        tick = state.cook_tick.reshape(n)
        # Pots cooking, ready or partly filled before anyone acts (for dish usefulness).
        idle = tick < 0
        busy_pots = jnp.sum(pots & (~idle | ((onions > 0) & (onions < C.MAX_ONIONS))))

        # 1. Interactions, cook 0 then cook 1: cook 1 acts on the kitchen cook 0 left.
        go = act == C.INTERACT
        kinds = terrain[target]
        counter_dishes = jnp.sum(items == C.DISH)
        first = self._interact(
            kinds[0],
            go[0],
            state.held[0],
            state.held_onions[0],
            items[target[0]],
            onions[target[0]],
            tick[target[0]],
            counter_dishes,
            jnp.sum(state.held == C.DISH),
            busy_pots,
        )
        same = target[1] == target[0]
        dish_moved = (first.item == C.DISH).astype(jnp.int32) - (items[target[0]] == C.DISH)
        second = self._interact(
            kinds[1],
            go[1],
            state.held[1],
            state.held_onions[1],
            jnp.where(same, first.item, items[target[1]]),
            jnp.where(same, first.onions, onions[target[1]]),
            jnp.where(same, first.tick, tick[target[1]]),
            counter_dishes + dish_moved,
            (first.hand == C.DISH).astype(jnp.int32) + (state.held[1] == C.DISH),
            busy_pots,
        )
        at0 = jnp.arange(n) == target[0]
        at1 = jnp.arange(n) == target[1]
        items = jnp.where(at1, second.item, jnp.where(at0, first.item, items))
        onions = jnp.where(at1, second.onions, jnp.where(at0, first.onions, onions))
        tick = jnp.where(at1, second.tick, jnp.where(at0, first.tick, tick))
        held = jnp.stack([first.hand, second.hand])
        held_onions = jnp.stack([first.hand_onions, second.hand_onions])
        sparse = jnp.stack([first.sparse, second.sparse])
        shaped = jnp.stack([first.shaped, second.shaped])

        # 2. Moves; a collision (same cell, or swapping cells) cancels both moves.
        moving = act < C.STAY
        facing = jnp.where(moving, act, state.dir)
        wanted = cell + jnp.asarray(self._move_offset)[act]
        wanted = jnp.where(jnp.asarray(self._floor)[wanted], wanted, cell)
        collide = (wanted[0] == wanted[1]) | ((wanted[0] == cell[1]) & (wanted[1] == cell[0]))
        cell = jnp.where(collide, cell, wanted)

        # 3. Cooking.
        tick = jnp.where(pots & (tick >= 0) & (tick < C.COOK_TIME), tick + 1, tick)

        next_state = State(
            pos=jnp.stack([cell % w, cell // w], axis=-1),
            dir=facing,
            held=held,
            held_onions=held_onions,
            items=items.reshape(h, w),
            onions=onions.reshape(h, w),
            cook_tick=tick.reshape(h, w),
            step=state.step + 1,
        )
        return next_state, sparse, shaped

    def noop_action(self, agent: str) -> int:
        """``stay``: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        del agent
        return C.STAY

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        del key  # the rules are deterministic
        act = jnp.stack([jnp.asarray(actions[a]) for a in self.agents])
        state, sparse, shaped = self.transition(state, act)
        team = jnp.sum(sparse)
        rewards = {a: team for a in self.agents}
        terminated = {a: jnp.array(False) for a in self.agents}
        terminated["__all__"] = jnp.array(False)
        info = {
            "shaped_reward": {a: shaped[i] for i, a in enumerate(self.agents)},
            "sparse_reward": {a: sparse[i] for i, a in enumerate(self.agents)},
            "metrics": {"deliveries": jnp.sum(sparse > 0).astype(jnp.float32)},
        }
        return self.get_obs(state), state, rewards, terminated, info

    # ------------------------------------------------------------ observations
    def encode(self, state: State) -> jax.Array:
        """Both cooks' observations as one array, uint8 ``(2, height, width, 26)``."""
        return encode(state, self.layout, self._horizon)

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        obs = self.encode(state)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_global_state(self, state: State) -> jax.Array:
        """The whole kitchen: ``agent_0``'s lossless observation (the game is fully
        observable), flattened to float32 ``(height * width * 26,)``."""
        return self.encode(state)[0].reshape(-1).astype(jnp.float32)

    def render(self, state: State, size: int = 160) -> jax.Array:
        """An RGB image of the kitchen; see :mod:`jaxmarl.environments.overcooked.viewer`.

        Args:
            state: the state.
            size: the image's longer side in pixels, a Python ``int`` fixed at trace time.
                Each tile gets ``t = size // max(height, width)`` whole pixels, so the
                image is uint8 ``(height * t, width * t, 3)``, up to ``max(height, width)
                - 1`` pixels short of ``size`` (the default draws ``cramped_room`` with
                32-pixel tiles). ``ValueError`` unless ``size >= max(height, width)``.
        """
        from jaxmarl.environments.overcooked.viewer import render_kitchen
        from jaxmarl.viz.raster import pixels_per_cell

        tile = pixels_per_cell(size, max(self.layout.height, self.layout.width))
        return render_kitchen(state, self.layout, tile)
