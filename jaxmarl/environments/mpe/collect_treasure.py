"""MPE ``collect_treasure``: collectors pick up treasures and bring them to the deposit of
their type (mpe2 ``collect_treasure_v1``, the treasure collection task of Iqbal & Sha,
"Actor-Attention-Critic for Multi-Agent Reinforcement Learning", 2019)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.mpe import constants as C
from jaxmarl.environments.mpe.env import MPEEnv, check_count
from jaxmarl.environments.mpe.geometry import length
from jaxmarl.environments.mpe.observations import obs_spaces
from jaxmarl.environments.mpe.types import TreasureState

# One colour per treasure type (mpe2's palette: blue, orange, green, red, purple, brown);
# deposits wear 0.35 of their type's colour, a carrying collector 0.85 of its load's.
TYPE_COLOURS = np.array(
    [
        [0.212, 0.408, 0.776],
        [0.945, 0.553, 0.000],
        [0.169, 0.627, 0.173],
        [0.839, 0.149, 0.157],
        [0.580, 0.404, 0.741],
        [0.549, 0.337, 0.294],
    ]
)
COLLECTOR_COLOUR = (0.85, 0.85, 0.85)
COLLECTOR_SIZE, DEPOSIT_SIZE, TREASURE_SIZE = 0.05, 0.075, 0.025
TREASURE_SPAWN = 0.95  # treasures appear uniformly in [-0.95, 0.95]^2
PARKED = -999.0  # where a picked-up treasure waits until it respawns (mpe2's spot)
EVENT_REWARD = 5.0  # to everyone, per treasure picked up or delivered
COLLISION_PENALTY = 5.0  # to a collector, per other collector it overlaps
SHAPING = 0.1  # distance shaping weight


class CollectTreasureMPE(MPEEnv):
    """Collectors pick up treasures and bring each to the deposit of its type.

    - Agents: ``collector_0 ...`` (radius 0.05, mass 1), then ``deposit_0 ...`` (radius
      0.075, mass 2.25); all accel 1.5, max speed 1.0, silent, and nobody collides
      (no contact forces). Deposit ``d`` accepts treasure type ``d``.
    - Landmarks: ``num_treasures`` treasures (radius 0.025), each of a uniformly drawn
      type, spawned in ``[-0.95, 0.95]^2``.
    - After the physics of each step, in this order: treasures that were picked up on
      the previous step respawn at a uniform place with a uniform type; then each
      treasure on the map, in order, is picked up by the first collector (in order)
      that overlaps it and carries nothing (the treasure leaves the map, parked at
      ``(-999, -999)``); then every collector that overlaps the deposit of the type it
      carries delivers it and carries nothing again.
    - Observation, collectors (86 with the defaults): ``[self_pos (2), self_vel (2),
      holding (D), others (A-1, 4 + 2D), treasures (T, 2 + D)]``; deposits (84) the same
      without ``holding``. ``holding`` is the one-hot type carried (zeros: nothing).
      ``others``: every other agent, nearest first, as ``[rel_pos (2), vel (2),
      deposit_type (D), holding (D)]`` (one-hots; zeros where they do not apply).
      ``treasures``: the treasures on the map, nearest first, as ``[rel_pos (2),
      type (D)]``, then zeros for those picked up this step.
    - Actions: ``Discrete(5)`` or ``Box(0, 1, (5,))``.
    - Reward: everyone gets ``+5`` per treasure picked up and per treasure delivered
      this step. A collector also gets ``-5`` per other collector it overlaps and
      ``-0.1 *`` the distance to the nearest treasure on the map (carrying nothing) or
      to the deposit of its load; a deposit ``-0.1 *`` the distance to the nearest
      collector carrying its type, or to the collectors' centroid if none does.
    - Episode: ``max_steps`` steps. ``info["metrics"]`` counts treasures ``collected``
      and ``delivered`` (summed over the episode by :class:`jaxmarl.wrappers.LogWrapper`).

    Args:
        num_collectors: number of collectors (>= 1).
        num_deposits: number of deposits, which is also the number of treasure types
            (1 to 6).
        num_treasures: number of treasures on the map (>= 1).
        action_type: ``"Discrete"`` (default) or ``"Continuous"``.
        max_steps: episode length (default 25).
    """

    episode_metrics: ClassVar[Mapping[str, str]] = {"collected": "sum", "delivered": "sum"}

    def __init__(
        self,
        num_collectors: int = 6,
        num_deposits: int = 2,
        num_treasures: int = 6,
        action_type: str = C.DISCRETE_ACT,
        max_steps: int = C.MAX_STEPS,
    ) -> None:
        name = type(self).__name__
        num_collectors = check_count(name, "num_collectors", num_collectors, 1)
        num_deposits = check_count(name, "num_deposits", num_deposits, 1)
        num_treasures = check_count(name, "num_treasures", num_treasures, 1)
        if num_deposits > len(TYPE_COLOURS):
            raise ValueError(
                f"{name}: num_deposits must be at most {len(TYPE_COLOURS)} (one colour per "
                f"treasure type, as in mpe2), got {num_deposits}"
            )
        self.num_collectors = num_collectors
        self.num_deposits = num_deposits
        self.num_treasures = num_treasures
        self.collectors = [f"collector_{i}" for i in range(num_collectors)]
        self.deposits = [f"deposit_{i}" for i in range(num_deposits)]
        is_collector = np.arange(num_collectors + num_deposits) < num_collectors
        super().__init__(
            agents=self.collectors + self.deposits,
            num_landmarks=num_treasures,
            dim_c=2,  # mpe2's world has a 2-d channel nobody uses
            action_type=action_type,
            max_steps=max_steps,
            agent_size=np.where(is_collector, COLLECTOR_SIZE, DEPOSIT_SIZE),
            agent_accel=1.5,
            agent_max_speed=1.0,
            agent_mass=np.where(is_collector, 1.0, 2.25),
            agent_silent=True,
            agent_collide=False,
            landmark_size=TREASURE_SIZE,
            landmark_collide=False,
            landmark_spawn=TREASURE_SPAWN,
        )
        D, A, T = num_deposits, self.num_agents, num_treasures
        other_part = (A - 1) * (4 + 2 * D) + T * (2 + D)
        self.observation_spaces = obs_spaces(
            {a: 4 + (D if is_collector[i] else 0) + other_part for i, a in enumerate(self.agents)}
        )
        # Each agent as the others see it is [deposit type (D), holding (D)]: this is the
        # fixed first half, (A, D), one-hot for deposits and zeros for collectors.
        self._deposit_code = np.concatenate([np.zeros((num_collectors, D)), np.eye(D)])

    @property
    def landmarks(self) -> list[str]:
        """The treasures' names, in world order."""
        return [f"treasure {i}" for i in range(self.num_treasures)]

    # -------------------------------------------------------------------- reset
    def initial_state(self, key: jax.Array) -> TreasureState:
        key_world, key_types = jax.random.split(key)
        world = super().initial_state(key_world)
        return TreasureState(
            p_pos=world.p_pos,
            p_vel=world.p_vel,
            c=world.c,
            step=world.step,
            goal=world.goal,
            holding=jnp.full((self.num_collectors,), -1, jnp.int32),
            treasure_type=jax.random.randint(key_types, (self.num_treasures,), 0, self.num_deposits),
            alive=jnp.ones((self.num_treasures,), bool),
            collected=jnp.zeros((), jnp.int32),
            delivered=jnp.zeros((), jnp.int32),
        )

    # --------------------------------------------------------------------- step
    def respawn_draws(self, key: jax.Array, state: TreasureState) -> tuple[jax.Array, jax.Array]:
        """Where and of what type each treasure would respawn this step: positions
        ``(num_treasures, 2)`` uniform in ``[-0.95, 0.95]^2`` and types int32
        ``(num_treasures,)``; only those of treasures off the map are used. ``state`` is
        the state before the step (a hook for replaying another implementation's draws)."""
        del state
        key_pos, key_type = jax.random.split(key)
        pos = jax.random.uniform(
            key_pos, (self.num_treasures, C.DIM_P), minval=-TREASURE_SPAWN, maxval=TREASURE_SPAWN
        )
        return pos, jax.random.randint(key_type, (self.num_treasures,), 0, self.num_deposits)

    def step_env(  # state: a TreasureState (Any: MPEEnv's hooks take its State)
        self, key: jax.Array, state: Any, actions: dict[str, jax.Array]
    ) -> tuple[dict[str, jax.Array], TreasureState, dict[str, jax.Array], dict[str, jax.Array], dict]:
        respawn_pos, respawn_type = self.respawn_draws(key, state)
        u, c = self.decode_actions(actions)
        p_pos, p_vel = self.world_step(state.p_pos, state.p_vel, u)
        state = state.replace(p_pos=p_pos, p_vel=p_vel, c=c, step=state.step + 1)
        state = self.collect_and_deliver(state, respawn_pos, respawn_type)
        terminated = {a: jnp.array(False) for a in self.agents}
        terminated["__all__"] = jnp.array(False)
        metrics = {
            "collected": state.collected.astype(jnp.float32),
            "delivered": state.delivered.astype(jnp.float32),
        }
        return self.get_obs(state), state, self.rewards(state), terminated, {"metrics": metrics}

    def collect_and_deliver(
        self, state: TreasureState, respawn_pos: jax.Array, respawn_type: jax.Array
    ) -> TreasureState:
        """Respawns, pick-ups and deliveries after the physics (see the class docstring)."""
        Cn, A = self.num_collectors, self.num_agents
        collector_pos = state.p_pos[:Cn]
        treasure_pos = state.p_pos[A:]
        was_alive = state.alive
        touching = (
            length(treasure_pos[:, None, :] - collector_pos[None, :, :]) < TREASURE_SIZE + COLLECTOR_SIZE
        )

        def pick(holding: jax.Array, treasure: tuple) -> tuple[jax.Array, jax.Array]:
            alive, touches, kind = treasure
            takers = alive & touches & (holding < 0)
            taken = jnp.any(takers)
            first = jnp.argmax(takers)  # the first free collector touching it
            holding = jnp.where(taken & (jnp.arange(Cn) == first), kind, holding)
            return holding, taken

        # Sequential over treasures: a collector that has just picked one up is no longer free.
        holding, picked = jax.lax.scan(pick, state.holding, (was_alive, touching, state.treasure_type))
        respawned = ~was_alive
        treasure_pos = jnp.where(
            picked[:, None], PARKED, jnp.where(respawned[:, None], respawn_pos, treasure_pos)
        )
        treasure_type = jnp.where(respawned, respawn_type, state.treasure_type)
        deposit_pos = state.p_pos[Cn:A]
        target = deposit_pos[jnp.clip(holding, 0, self.num_deposits - 1)]
        delivers = (holding >= 0) & (length(collector_pos - target) < COLLECTOR_SIZE + DEPOSIT_SIZE)
        return state.replace(
            p_pos=state.p_pos.at[A:].set(treasure_pos),
            holding=jnp.where(delivers, -1, holding),
            treasure_type=treasure_type,
            alive=~picked,
            collected=jnp.sum(picked, dtype=jnp.int32),
            delivered=jnp.sum(delivers, dtype=jnp.int32),
        )

    # ---------------------------------------------------------------- observing
    def get_obs(self, state: TreasureState) -> dict[str, jax.Array]:
        Cn, A, D = self.num_collectors, self.num_agents, self.num_deposits
        pos, vel = state.p_pos[:A], state.p_vel[:A]
        holding = jax.nn.one_hot(state.holding, D)  # (C, D); zeros for -1
        code = jnp.concatenate(
            [jnp.asarray(self._deposit_code), jnp.concatenate([holding, jnp.zeros((A - Cn, D))])], axis=-1
        )  # (A, 2D)
        treasure_rel_all = state.p_pos[A:]
        treasure_code = jax.nn.one_hot(state.treasure_type, D)

        def observe(i: jax.Array, others: jax.Array) -> jax.Array:
            here = pos[i]
            order = others[jnp.argsort(length(pos[others] - here))]  # nearest first
            seen = jnp.concatenate([pos[order] - here, vel[order], code[order]], axis=-1)
            rel = treasure_rel_all - here
            t_order = jnp.argsort(jnp.where(state.alive, length(rel), jnp.inf))  # on the map first
            treasures = jnp.concatenate([rel, treasure_code], axis=-1)[t_order]
            treasures = jnp.where(state.alive[t_order][:, None], treasures, 0.0)
            return jnp.concatenate([seen.ravel(), treasures.ravel()])

        body = jax.vmap(observe)(jnp.arange(A), jnp.asarray(self.others))
        head = jnp.concatenate([pos, vel], axis=-1)
        out = self.to_dict(jnp.concatenate([head[:Cn], holding, body[:Cn]], axis=-1), self.collectors)
        out.update(self.to_dict(jnp.concatenate([head[Cn:], body[Cn:]], axis=-1), self.deposits))
        return out

    def rewards(self, state: Any) -> dict[str, jax.Array]:
        Cn, A, D = self.num_collectors, self.num_agents, self.num_deposits
        collector_pos, deposit_pos = state.p_pos[:Cn], state.p_pos[Cn:A]
        shared = EVENT_REWARD * (state.collected + state.delivered).astype(state.p_pos.dtype)
        # Collectors.
        apart = length(collector_pos[:, None, :] - collector_pos[None, :, :])
        overlaps = jnp.sum((apart < 2 * COLLECTOR_SIZE) & ~np.eye(Cn, dtype=bool), axis=1)
        to_treasure = length(state.p_pos[A:][None, :, :] - collector_pos[:, None, :])  # (C, T)
        nearest = jnp.min(jnp.where(state.alive[None, :], to_treasure, jnp.inf), axis=1)
        seek = jnp.where(jnp.any(state.alive), nearest, 0.0)
        carrying = state.holding >= 0
        to_deposit = length(collector_pos - deposit_pos[jnp.clip(state.holding, 0, D - 1)])
        collector_rew = -COLLISION_PENALTY * overlaps - SHAPING * jnp.where(carrying, to_deposit, seek)
        # Deposits.
        mine = state.holding[None, :] == jnp.arange(D)[:, None]  # (D, C): carrying my type
        to_carrier = length(deposit_pos[:, None, :] - collector_pos[None, :, :])
        nearest_carrier = jnp.min(jnp.where(mine, to_carrier, jnp.inf), axis=1)
        to_centroid = length(deposit_pos - jnp.mean(collector_pos, axis=0))
        deposit_rew = -SHAPING * jnp.where(jnp.any(mine, axis=1), nearest_carrier, to_centroid)
        return self.to_dict(jnp.concatenate([collector_rew, deposit_rew]) + shared)

    def get_global_state(self, state: Any) -> jax.Array:
        """Every agent's position and velocity, what each collector carries (one-hot),
        and the treasures on the map: positions and one-hot types (zeros for those
        picked up), flattened into one vector."""
        A, D = self.num_agents, self.num_deposits
        on_map = state.alive[:, None]
        parts = [
            state.p_pos[:A].ravel(),
            state.p_vel[:A].ravel(),
            jax.nn.one_hot(state.holding, D).ravel(),
            jnp.where(on_map, state.p_pos[A:], 0.0).ravel(),
            jnp.where(on_map, jax.nn.one_hot(state.treasure_type, D), 0.0).ravel(),
        ]
        return jnp.concatenate(parts)

    # ---------------------------------------------------------------- rendering
    def entity_colours(self, state: Any) -> jax.Array:
        colours = jnp.asarray(TYPE_COLOURS[: self.num_deposits], jnp.float32)
        load = colours[jnp.clip(state.holding, 0, self.num_deposits - 1)] * 0.85
        collectors = jnp.where((state.holding >= 0)[:, None], load, jnp.asarray(COLLECTOR_COLOUR))
        return jnp.concatenate([collectors, colours * 0.35, colours[state.treasure_type]])

    def entity_visible(self, state: Any) -> jax.Array:
        return jnp.concatenate([jnp.ones((self.num_agents,), bool), state.alive])
