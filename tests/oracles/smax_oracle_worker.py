"""JaxMARL 0.2.0's SMAX, recorded step by step (run with the oracle's interpreter).

Usage: ``python smax_oracle_worker.py IN.json OUT.npz``. ``IN.json`` lists cases
(``name``: the scenario; ``action_type``; ``see_enemy_actions``; ``use_self_play_reward``;
``episodes``; ``steps``; ``seed``). For each case, every episode starts from JaxMARL's
reset (positions clipped 0.5 inside the map, as our generator keeps them) and plays
random actions (drawn here, in JaxMARL's labelling) for ``steps`` steps, all episodes
vmapped and the steps scanned in one compiled call. Recorded per step:

- the state before the step (``s_*``) and the actions (``act``);
- JaxMARL's decoded actions (``dec_move``, ``dec_attack``);
- every tick's cooldowns, positions and alive flags (``tick_*``, from
  ``step_env_no_decode(..., get_state_sequence=True)`` with the step's key);
- the state after the step (``n_*``), rewards, dones, the action masks of the next
  state, and JaxMARL's unit-list and conic observations of the next state.

How the documented differences are put in (``docs/environments/smax.md``, "Differences
from JaxMARL 0.2.0"), each exactly:

- **Cooldown timing.** JaxMARL checks a weapon's cooldown before counting it down, so a
  weapon fires one tick after its cooldown has run out; ours fires when it runs out.
  The dynamics env is therefore built with every cooldown one tick shorter
  (``unit_type_weapon_cooldowns - time_per_step``), which fires on exactly our ticks;
  its cooldowns are then ours minus one tick (negative when idle: ours stop at 0).
- **Observations** are JaxMARL's own functions (an env with the standard cooldowns)
  applied to the next state with three fields in our conventions: cooldowns mapped to
  ours (``max(c + tick, 0)``), the last attack as our feature value ``(k + 1) / n``
  (written into ``prev_attack_actions`` times JaxMARL's divisor), and, for the conic
  observation, dead units moved out of sight (JaxMARL's conic view shows the dead).
- **Continuous aiming** at the nearest *living* enemy: decoded with dead units moved
  out of reach. Continuous actions use probabilities 0 or 1 only (certain outcomes
  both ways), so no coin flip needs matching; the test maps JaxMARL's inverted
  probabilities (JaxMARL moves with probability ``do_shoot``).
"""

from __future__ import annotations

import json
import os
import sys

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_backend_optimization_level=0"

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.smax import SMAX, map_name_to_scenario

FAR = 1.0e6  # a position out of everyone's sight and reach


def build(case: dict, cooldowns: jax.Array | None = None) -> SMAX:
    kwargs = {} if cooldowns is None else {"unit_type_weapon_cooldowns": cooldowns}
    return SMAX(
        scenario=map_name_to_scenario(case["name"]),
        action_type=case["action_type"],
        see_enemy_actions=case["see_enemy_actions"],
        use_self_play_reward=case["use_self_play_reward"],
        **kwargs,
    )


def record_case(case: dict) -> dict[str, np.ndarray]:
    obs_env = build(case)
    dt = obs_env.time_per_step
    env = build(case, obs_env.unit_type_weapon_cooldowns - dt)
    na, ne, u = env.num_allies, env.num_enemies, env.num_agents
    width, height = env.map_width, env.map_height
    continuous = case["action_type"] == "continuous"
    n_targets = jnp.where(jnp.arange(u) < na, ne, na)

    def random_actions(key: jax.Array, state, aggressive: jax.Array) -> jax.Array:
        k_any, k_legal, k_attack, k_mode, k_cont = jax.random.split(key, 5)
        if continuous:
            bits = jax.random.uniform(k_cont, (u, 4))
            shoot = bits[:, 1] < jnp.where(aggressive, 0.7, 0.3)
            last = bits[:, 0] < 0.5
            coords = jax.random.uniform(k_any, (u, 2))
            # JaxMARL's probabilities: P(move) = do_shoot, P(shoot the last target) = 1 - shoot_last.
            return jnp.stack(
                [jnp.where(last, 0.0, 1.0), jnp.where(shoot, 0.0, 1.0), coords[:, 0], coords[:, 1]], -1
            )
        avail = env.get_avail_actions(state)
        width_a = 5 + max(na, ne)
        masks = jnp.stack([jnp.pad(avail[a], (0, width_a - avail[a].shape[0])) for a in env.agents]) > 0
        n_actions = 5 + n_targets
        exists = jnp.arange(width_a)[None, :] < n_actions[:, None]
        attacks = masks & (jnp.arange(width_a)[None, :] >= 5)
        keys = jax.random.split(k_any, 3)
        uniform_any = jax.random.categorical(keys[0], jnp.where(exists, 0.0, -jnp.inf))
        legal = jax.random.categorical(k_legal, jnp.where(masks, 0.0, -jnp.inf))
        attack = jax.random.categorical(k_attack, jnp.where(attacks, 0.0, -jnp.inf))
        mode = jax.random.uniform(k_mode, (u,))
        can_attack = jnp.any(attacks, -1)
        chosen = jnp.where(aggressive & can_attack & (mode < 0.7), attack, legal)
        return jnp.where(mode > 0.85, uniform_any, chosen).astype(jnp.int32)

    def our_attack_feature(state) -> jax.Array:
        """Our last-attack feature, (k + 1) / n with k in our labelling, times JaxMARL's divisor."""
        a = state.prev_attack_actions.astype(jnp.int32)
        k = jnp.where(jnp.arange(u) < na, a - 5, na - 1 - (a - 5))
        return jnp.where(a >= 5, (k + 1) / n_targets * (n_targets + 4), 0.0).astype(jnp.float32)

    def observations(state) -> tuple[jax.Array, jax.Array]:
        mapped = state.replace(
            unit_weapon_cooldowns=jnp.maximum(state.unit_weapon_cooldowns + dt, 0.0),
            prev_attack_actions=our_attack_feature(state),
        )
        unit_list = obs_env.get_obs_unit_list(mapped)
        hidden = mapped.replace(
            unit_positions=jnp.where(state.unit_alive[:, None], state.unit_positions, FAR)
        )
        conic = obs_env.get_obs_conic(hidden)
        return (
            jnp.stack([unit_list[a] for a in env.agents]),
            jnp.stack([conic[a] for a in env.agents]),
        )

    def fields(state, prefix: str) -> dict[str, jax.Array]:
        return {
            f"{prefix}pos": state.unit_positions,
            f"{prefix}health": state.unit_health,
            f"{prefix}alive": state.unit_alive,
            f"{prefix}types": state.unit_types.astype(jnp.int32),
            f"{prefix}cooldown": state.unit_weapon_cooldowns,
            f"{prefix}move": state.prev_movement_actions,
            f"{prefix}attack": state.prev_attack_actions.astype(jnp.int32),
            f"{prefix}step": state.step,
        }

    def episode(key: jax.Array) -> dict[str, jax.Array]:
        k_reset, k_mode, k_steps = jax.random.split(key, 3)
        _, state = env.reset(k_reset)
        clipped = jnp.clip(state.unit_positions, 0.5, jnp.array([width - 0.5, height - 0.5]))
        state = state.replace(unit_positions=clipped)
        aggressive = jax.random.uniform(k_mode) < 0.6

        def body(state, key):
            k_act, k_step = jax.random.split(key)
            actions = random_actions(k_act, state, aggressive)
            key2, action_key = jax.random.split(k_step)  # as SMAX.step_env
            if continuous:
                aim_state = state.replace(
                    unit_positions=jnp.where(state.unit_alive[:, None], state.unit_positions, FAR)
                )
                decoded = env._decode_actions(action_key, aim_state, actions)
            else:
                decoded = env._decode_actions(action_key, state, actions)
            _, nxt, rewards, dones, _ = env.step_env_no_decode(key2, state, decoded)
            ticks = env.step_env_no_decode(key2, state, decoded, True)
            unit_list, conic = observations(nxt)
            avail = env.get_avail_actions(nxt)
            width_a = 5 + max(na, ne)
            out = {
                **fields(state, "s_"),
                **fields(nxt, "n_"),
                "act": actions,
                "dec_move": decoded[0],
                "dec_attack": decoded[1].astype(jnp.int32),
                "tick_cooldown": ticks.unit_weapon_cooldowns,
                "tick_pos": ticks.unit_positions,
                "tick_alive": ticks.unit_alive,
                "reward": jnp.stack([rewards[a] for a in env.agents]),
                "done": jnp.stack([dones[a] for a in env.agents]),
                "done_all": dones["__all__"],
                "avail": jnp.stack([jnp.pad(avail[a], (0, width_a - avail[a].shape[0])) for a in env.agents]),
                "obs_unit_list": unit_list,
                "obs_conic": conic,
            }
            return nxt, out

        _, out = jax.lax.scan(body, state, jax.random.split(k_steps, case["steps"]))
        return out

    keys = jax.random.split(jax.random.PRNGKey(case["seed"]), case["episodes"])
    out = jax.jit(jax.vmap(episode))(keys)
    return {k: np.asarray(v) for k, v in out.items()}


def main() -> None:
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    arrays = {}
    for i, case in enumerate(cases):
        for k, v in record_case(case).items():
            arrays[f"{i}/{k}"] = v
    np.savez(sys.argv[2], **arrays)
    print("ok")


if __name__ == "__main__":
    main()
