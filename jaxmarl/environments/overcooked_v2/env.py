"""Overcooked V2: cooks make and serve soups of several recipes, with partial observability
and recipe indicators (Gessler et al., 2025, "OvercookedV2: Rethinking Overcooked for
Zero-Shot Coordination"; JaxMARL 0.2.0's ``overcooked_v2``).

Rules are JaxMARL 0.2.0's ``OvercookedV2``, transition for transition (the oracle test
replays random trajectories on every layout), except where it has a bug (see the docs
page's "Differences from JaxMARL 0.2.0"). The :class:`OvercookedV2` docstring is the full
spec; ``docs/environments/overcooked_v2.md`` adds the layouts and the channel table.

The rules of one transition (moves, interactions, timers, recipe) are in ``rules.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from functools import partial
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.overcooked_v2 import constants as C
from jaxmarl.environments.overcooked_v2 import objects
from jaxmarl.environments.overcooked_v2.featurized import FeatureEncoder
from jaxmarl.environments.overcooked_v2.generator import initial_state, sample_permutations
from jaxmarl.environments.overcooked_v2.layouts import Layout, get_layout
from jaxmarl.environments.overcooked_v2.observations import GridEncoder
from jaxmarl.environments.overcooked_v2.rules import transition
from jaxmarl.environments.overcooked_v2.types import State
from jaxmarl.environments.spaces import Box, Discrete, Space

__all__ = ["ObservationType", "OvercookedV2"]


class ObservationType(StrEnum):
    """What a cook observes: the grid (``DEFAULT``) or Overcooked-AI's features
    (``FEATURIZED``, one-ingredient kitchens only)."""

    DEFAULT = "default"
    FEATURIZED = "featurized"


def _check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"OvercookedV2: {name} must be True or False, got {value!r}")
    return bool(value)


def _obs_type(value: Any) -> ObservationType:
    try:
        return ObservationType(value)
    except ValueError:
        choices = ", ".join(repr(t.value) for t in ObservationType)
        raise ValueError(
            f"OvercookedV2: unknown observation_type {value!r}; use an ObservationType or one of {choices} "
            "(or a list of them, one per agent)"
        ) from None


class OvercookedV2(MultiAgentEnv):
    """Cooks share a kitchen and are paid for every dish of the current recipe they serve.

    A recipe is three ingredients (``[0, 0, 1]``: two of ingredient 0 and one of 1); an
    episode asks for one of the layout's possible recipes, shown on recipe indicators
    (``R``, always) and recipe buttons (``L``, for a while after a press). Ingredients
    go into a pot, which cooks them for 20 steps; a cook takes the soup out with a plate
    and delivers it at a serving counter. The transition rules are in the module
    docstring.

    - **Agents:** ``agent_0`` ... one per ``A`` of the layout (``long_room`` has one).
    - **Actions:** ``Discrete(6)``: ``0`` right, ``1`` down, ``2`` left, ``3`` up, ``4``
      stay, ``5`` interact (JaxMARL's ids); every action is always legal; an action
      outside the space acts as stay (``info["invalid_action"]``).
    - **Observation:** ``ObservationType.DEFAULT``: a uint8 grid ``(height, width, 25 +
      5 n)`` (``n`` ingredients, one more channel with ``indicate_successful_delivery``),
      or the ``(2 v + 1, 2 v + 1, ...)`` window around the cook with ``agent_view_size``
      ``v`` (see ``observations.py``). ``ObservationType.FEATURIZED``: float32 ``(48 N,)``
      Overcooked-AI features (see ``featurized.py``). A list gives each agent its own.
      Box bounds are exact for the whole-grid observation.
    - **Reward:** shared by the team: 20 per correct dish delivered, -20 per wrong one
      with ``negative_rewards`` (else 0), -5 per recipe-button press.
      ``info["shaped_reward"]`` holds each cook's shaped reward: +3 for putting an
      ingredient into a pot that the recipe still needs (``negative_rewards``: -3 for
      one it does not), +5 for starting a pot that holds the recipe
      (``start_cooking_interaction``), +5 for taking the recipe's soup out of a pot, +3
      for taking a plate (from a pile or a counter) while no plate lies on any counter
      and the cooks held fewer plates before the step than pots have something in them.
      Training scripts add it with an annealed weight (``REW_SHAPING_HORIZON``).
    - **Episode:** ``max_steps`` steps, a time limit (``info["truncated"]``); there are
      no terminations. Episode metrics: ``deliveries`` (correct dishes served) and
      ``wrong_deliveries``.
    - **State:** :class:`jaxmarl.environments.overcooked_v2.State`.

    Example::

        env = OvercookedV2(layout="grounded_coord_simple", agent_view_size=2)
        obs, state = env.reset(jax.random.PRNGKey(0))
        actions = {"agent_0": jnp.int32(5), "agent_1": jnp.int32(4)}  # interact, stay
        obs, state, reward, done, info = env.step(jax.random.PRNGKey(1), state, actions)

    Args:
        layout: a name in ``overcooked_v2_layouts``, an ASCII grid (with a recipe
            indicator ``R``) or a :class:`Layout` (``Layout.from_string(grid,
            possible_recipes=...)``).
        max_steps: the episode's length (400).
        observation_type: an :class:`ObservationType` (or ``"default"`` /
            ``"featurized"``), or a list of them, one per agent.
        agent_view_size: ``v``: each cook sees the ``2 v + 1`` square around it (grid
            observations only); ``None``: the whole kitchen.
        random_reset: start episodes from random states (``generator.py``: random
            positions in each cook's region, random items in hands, on counters and in
            pots).
        random_agent_positions: start the cooks on random cells of their regions, facing
            random ways (ignored with ``random_reset``).
        start_cooking_interaction: a pot starts cooking only when an empty-handed cook
            interacts with it (then with one to three ingredients), not by itself at three.
        negative_rewards: -20 for a wrong dish, -3 shaped for a useless ingredient in a pot.
        sample_recipe_on_delivery: draw a new recipe after every correct delivery.
        indicate_successful_delivery: add an observation channel, on serving counters,
            saying a correct dish was delivered in the last step.
        op_ingredient_permutations: ingredient indices each cook sees shuffled among
            themselves (a permutation per cook, drawn at reset), for other-play.
        initial_state_buffer: a batch of :class:`State` (leading axis) to start episodes
            from instead (a uniformly drawn one, see :meth:`reset_from_state`).
        force_path_planning: build the featurized observation's path table at
            construction even when no agent observes features (for
            :meth:`get_obs_featurized`; otherwise it is built on first use).

    Raises:
        LayoutError: for an unknown layout name (with the closest names) or a malformed
            grid.
        ValueError: for another bad keyword or an impossible combination (featurized
            observations with ``agent_view_size`` or more than one ingredient, a list of
            observation types of the wrong length, permutations of unknown ingredients,
            an initial state buffer that does not fit the layout).
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {"deliveries": "sum", "wrong_deliveries": "sum"}

    def __init__(
        self,
        layout: str | Layout = "cramped_room",
        max_steps: int = 400,
        observation_type: ObservationType | str | Sequence[ObservationType | str] = ObservationType.DEFAULT,
        agent_view_size: int | None = None,
        random_reset: bool = False,
        random_agent_positions: bool = False,
        start_cooking_interaction: bool = False,
        negative_rewards: bool = False,
        sample_recipe_on_delivery: bool = False,
        indicate_successful_delivery: bool = False,
        op_ingredient_permutations: Sequence[int] | None = None,
        initial_state_buffer: State | None = None,
        force_path_planning: bool = False,
    ) -> None:
        self.layout = get_layout(layout)
        lay = self.layout
        super().__init__(num_agents=lay.num_agents)
        self.agents = [f"agent_{i}" for i in range(lay.num_agents)]
        self.height, self.width = lay.height, lay.width
        if isinstance(max_steps, bool) or not isinstance(max_steps, (int, np.integer)) or max_steps < 1:
            raise ValueError(f"OvercookedV2: max_steps must be an integer >= 1, got {max_steps!r}")
        self.max_steps = self._horizon = int(max_steps)

        if isinstance(observation_type, (list, tuple)):
            if len(observation_type) != self.num_agents:
                raise ValueError(
                    f"OvercookedV2: observation_type lists {len(observation_type)} types but layout "
                    f"{lay.name!r} has {self.num_agents} agent(s); give one per agent"
                )
            types = [_obs_type(t) for t in observation_type]
            self.observation_type: ObservationType | list[ObservationType] = types
        else:
            types = [_obs_type(observation_type)] * self.num_agents
            self.observation_type = types[0]
        self._types = types
        if agent_view_size is not None and (
            isinstance(agent_view_size, bool)
            or not isinstance(agent_view_size, (int, np.integer))
            or agent_view_size < 1
        ):
            raise ValueError(
                f"OvercookedV2: agent_view_size must be None or an integer >= 1, got {agent_view_size!r}"
            )
        self.agent_view_size = None if agent_view_size is None else int(agent_view_size)
        featurized = ObservationType.FEATURIZED in types
        if featurized and self.agent_view_size is not None:
            raise ValueError(
                "OvercookedV2: agent_view_size applies to grid observations only; the featurized "
                "observation has no view window (use agent_view_size=None)"
            )
        if featurized and lay.num_ingredients != 1:
            raise ValueError(
                f"OvercookedV2: the featurized observation needs a one-ingredient kitchen; layout "
                f"{lay.name!r} has {lay.num_ingredients} ingredients"
            )

        self.random_reset = _check_bool("random_reset", random_reset)
        self.random_agent_positions = _check_bool("random_agent_positions", random_agent_positions)
        self.start_cooking_interaction = _check_bool("start_cooking_interaction", start_cooking_interaction)
        self.negative_rewards = _check_bool("negative_rewards", negative_rewards)
        self.sample_recipe_on_delivery = _check_bool("sample_recipe_on_delivery", sample_recipe_on_delivery)
        self.indicate_successful_delivery = _check_bool(
            "indicate_successful_delivery", indicate_successful_delivery
        )
        force_path_planning = _check_bool("force_path_planning", force_path_planning)

        self.op_ingredient_permutations = op_ingredient_permutations
        self._permuted: tuple[int, ...] = ()
        if op_ingredient_permutations is not None:
            indices = list(op_ingredient_permutations)
            if any(isinstance(i, bool) or not isinstance(i, (int, np.integer)) for i in indices) or any(
                not 0 <= int(i) < lay.num_ingredients for i in indices
            ):
                raise ValueError(
                    f"OvercookedV2: op_ingredient_permutations must list ingredient indices in "
                    f"0..{lay.num_ingredients - 1} (layout {lay.name!r}), got {op_ingredient_permutations!r}"
                )
            if len(set(int(i) for i in indices)) != len(indices):
                raise ValueError(f"OvercookedV2: op_ingredient_permutations repeats an index: {indices}")
            self._permuted = tuple(int(i) for i in indices)

        self.initial_state_buffer = initial_state_buffer
        if initial_state_buffer is not None:
            self._check_buffer(initial_state_buffer)

        self.possible_recipes = jnp.asarray(lay.possible_recipes, jnp.int32)
        self.enclosed_spaces = lay.enclosed_spaces
        self.action_set = jnp.arange(C.NUM_ACTIONS, dtype=jnp.int32)

        # Static tables, folded into the compiled step.
        self._terrain = lay.static_objects.reshape(-1)
        self._floor = lay.floor.reshape(-1)
        self._grid = GridEncoder(
            lay, self.indicate_successful_delivery, bool(self._permuted), self.agent_view_size
        )
        self._world = GridEncoder(lay, self.indicate_successful_delivery, False, None)
        self._features: FeatureEncoder | None = (
            FeatureEncoder(lay) if featurized or force_path_planning else None
        )

        self.observation_spaces = {}
        shapes = []
        for agent, kind in zip(self.agents, types, strict=True):
            if kind == ObservationType.DEFAULT:
                low, high = self._grid.bounds()
                space = Box(low, high, self._grid.shape, dtype=jnp.uint8)
            else:
                low, high = self.features.bounds()
                space = Box(low, high, low.shape, dtype=jnp.float32)
            self.observation_spaces[agent] = space
            shapes.append(space.shape)
        self.obs_shape: tuple[int, ...] | list[tuple[int, ...]] = (
            shapes if isinstance(self.observation_type, list) else shapes[0]
        )
        self.action_spaces = {a: Discrete(C.NUM_ACTIONS) for a in self.agents}

    def observation_space(self, agent: str | None = None) -> Space:
        """The observation space of ``agent``; without one (JaxMARL 0.2.0's signature,
        which its Overcooked V2 script calls so), the first agent's."""
        return self.observation_spaces[self.agents[0] if agent is None else agent]

    def action_space(self, agent: str | None = None) -> Space:
        """The action space of ``agent`` (every cook's is the same); ``agent`` may be left out."""
        return self.action_spaces[self.agents[0] if agent is None else agent]

    def _check_buffer(self, buffer: State) -> None:
        if not isinstance(buffer, State):
            raise ValueError(
                f"OvercookedV2: initial_state_buffer must be a batched State, got {type(buffer).__name__}"
            )
        one = jax.eval_shape(
            lambda: initial_state(
                jax.random.PRNGKey(0),
                self.layout,
                permuted=None,
                random_reset=False,
                random_agent_positions=False,
                interact_to_cook=False,
            )
        )
        sizes = set()
        for name in State.__dataclass_fields__:
            got, want = np.shape(getattr(buffer, name)), getattr(one, name).shape
            if len(got) != len(want) + 1 or tuple(got[1:]) != tuple(want):
                raise ValueError(
                    f"OvercookedV2: initial_state_buffer.{name} has shape {tuple(got)}; layout "
                    f"{self.layout.name!r} needs (num_states, {', '.join(map(str, want))})"
                )
            sizes.add(got[0])
        if len(sizes) != 1 or 0 in sizes:
            raise ValueError(
                f"OvercookedV2: initial_state_buffer fields disagree on the number of states: {sorted(sizes)}"
            )

    @property
    def features(self) -> FeatureEncoder:
        """The featurized observation's encoder (built on first use)."""
        if self._features is None:
            self._features = FeatureEncoder(self.layout)
        return self._features

    @property
    def num_actions(self) -> int:
        """Actions per cook (6)."""
        return C.NUM_ACTIONS

    def noop_action(self, agent: str) -> int:
        """``stay``: what an out-of-range action is replaced by (``info["invalid_action"]``)."""
        del agent
        return C.STAY

    # ------------------------------------------------------------------ episodes
    def reset_env(self, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        if self.initial_state_buffer is not None:
            count = jax.tree.leaves(self.initial_state_buffer)[0].shape[0]
            index = jax.random.randint(key, (), 0, count)
            state = jax.tree.map(lambda x: jnp.asarray(x)[index], self.initial_state_buffer)
            return self.reset_from_state(state, key)
        state = initial_state(
            key,
            self.layout,
            permuted=self._permuted,
            random_reset=self.random_reset,
            random_agent_positions=self.random_agent_positions,
            interact_to_cook=self.start_cooking_interaction,
        )
        return self.get_obs(state), state

    @partial(jax.jit, static_argnums=(0,))
    def reset_from_state(self, state: State, key: jax.Array) -> tuple[dict[str, jax.Array], State]:
        """Start an episode from ``state``: its cooks, kitchen and recipe are kept, the
        step count and the delivery flag cleared, and the ingredient permutations drawn
        anew from ``key`` (identity without ``op_ingredient_permutations``).

        Returns:
            ``(obs, state)``.
        """
        if self._permuted:
            perms = sample_permutations(key, self.layout, self._permuted)
        else:
            perms = jnp.broadcast_to(
                jnp.arange(self.layout.num_ingredients, dtype=jnp.int32),
                (self.num_agents, self.layout.num_ingredients),
            )
        state = state.replace(
            step=jnp.zeros((), jnp.int32),
            new_correct_delivery=jnp.zeros((), bool),
            ingredient_permutations=perms,
        )
        return self.get_obs(state), state

    def is_terminal(self, state: State) -> jax.Array:
        """Whether the episode is over: ``max_steps`` steps were taken (there are no other
        endings)."""
        return state.step >= self._horizon

    # --------------------------------------------------------------------- rules
    def _transition(
        self, key: jax.Array, state: State, actions: jax.Array
    ) -> tuple[State, jax.Array, jax.Array, dict[str, jax.Array]]:
        return transition(
            key,
            state,
            actions,
            self.layout,
            start_cooking_interaction=self.start_cooking_interaction,
            negative_rewards=self.negative_rewards,
            sample_recipe_on_delivery=self.sample_recipe_on_delivery,
        )

    def step_agents(
        self, key: jax.Array, state: State, actions: jax.Array
    ) -> tuple[State, jax.Array, jax.Array]:
        """One transition of the rules, without observations or the time limit.

        Args:
            key: PRNG key (used only to draw a new recipe, with ``sample_recipe_on_delivery``).
            state: the state.
            actions: every cook's action, int ``(num_agents,)``.

        Returns:
            ``(next_state, reward, shaped)``: the team's reward, float32 ``()``, and each
            cook's shaped reward, float32 ``(num_agents,)``.
        """
        next_state, reward, shaped, _ = self._transition(key, state, actions)
        return next_state, reward, shaped

    def step_env(
        self, key: jax.Array, state: State, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], State, dict[str, jax.Array], dict[str, jax.Array], dict[str, Any]]:
        act = jnp.stack([jnp.asarray(actions[a]) for a in self.agents])
        state, reward, shaped, counts = self._transition(key, state, act)
        rewards = {a: reward for a in self.agents}
        terminated = {a: jnp.array(False) for a in self.agents}
        terminated["__all__"] = jnp.array(False)
        info = {
            "shaped_reward": {a: shaped[i] for i, a in enumerate(self.agents)},
            "metrics": counts,
        }
        return self.get_obs(state), state, rewards, terminated, info

    # ------------------------------------------------------------ observations
    def get_obs_default(self, state: State) -> jax.Array:
        """Every cook's grid observation of the whole kitchen (no view window), uint8
        ``(num_agents, height, width, channels)``."""
        return self._grid.full(state)

    def get_obs_featurized(self, state: State) -> jax.Array:
        """Every cook's featurized observation, float32 ``(num_agents, 48 num_agents)``
        (one-ingredient kitchens only)."""
        return self.features(state)

    def get_obs_for_type(self, state: State, obs_type: ObservationType | str) -> dict[str, jax.Array]:
        """Every cook's observation of one type (with the view window for grids), keyed
        by agent."""
        if _obs_type(obs_type) == ObservationType.DEFAULT:
            obs = self._grid(state)
        else:
            obs = self.features(state)
        return {a: obs[i] for i, a in enumerate(self.agents)}

    def get_obs(self, state: State) -> dict[str, jax.Array]:
        kinds = set(self._types)
        if len(kinds) == 1:
            return self.get_obs_for_type(state, self._types[0])
        grid, features = self._grid(state), self.features(state)
        return {
            a: grid[i] if kind == ObservationType.DEFAULT else features[i]
            for i, (a, kind) in enumerate(zip(self.agents, self._types, strict=True))
        }

    def get_global_state(self, state: State) -> jax.Array:
        """The whole kitchen for a centralised critic: ``agent_0``'s grid observation of
        the whole kitchen (unpermuted, every cook in it), then the recipe's ingredient
        counts (even where no indicator shows it), float32 ``(height * width * channels
        + num_ingredients,)``."""
        grid = self._world.full(state)[0].reshape(-1)
        recipe = objects.counts(state.recipe, self.layout.num_ingredients)
        return jnp.concatenate([grid, recipe]).astype(jnp.float32)

    def render(self, state: State, size: int = 320) -> jax.Array:
        """An RGB image of the kitchen; see :mod:`jaxmarl.environments.overcooked_v2.viewer`.

        Args:
            state: the state.
            size: the image's longer side in pixels, a Python ``int`` fixed at trace time.
                Each tile gets ``t = size // max(height, width)`` whole pixels, so the
                image is uint8 ``(height * t, width * t, 3)``. ``ValueError`` unless ``size
                >= max(height, width)``.
        """
        from jaxmarl.environments.overcooked_v2.viewer import render_kitchen
        from jaxmarl.viz.raster import pixels_per_cell

        tile = pixels_per_cell(size, max(self.height, self.width))
        return render_kitchen(state, self.layout, tile)
