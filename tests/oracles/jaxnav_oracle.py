"""Play JaxNav episodes in JaxMARL 0.2.0 and record everything (run by
``test_jaxnav_oracle.py`` with the oracle's interpreter, see ``jaxmarl020.py``)::

    python jaxnav_oracle.py case1.npz record1.npz [case2.npz record2.npz ...]

A case (``caseN.npz``) holds ``config``, a JSON string: ``env`` (keywords of ``JaxNav``,
or of the singleton ``singleton``), ``own_reward`` (see below), ``random_share`` (the
probability that a robot's action is uniformly random rather than steered towards its
goal); and ``keys`` uint32 ``(E, 2)``. Episode ``e`` starts from ``reset(k0)`` and takes
``T = config["steps"]`` steps ``step(k_t, state, a_t)`` (automatic resets included), all
keys split from ``keys[e]``. Steered actions turn towards the goal the observation
shows and drive on (discrete: the nearest of the 15 commands), so that robots reach
goals, collide and run out of time in a short sample.

With ``"auto_reset": false`` episodes run through ``step_env`` (no automatic reset: a
finished episode goes on from its last state), for levels that are slow to draw (Barn).

``recordN.npz`` gets ``actions`` ``(E, T, n[, 2])``, the start (index 0) and each step's
state fields and observations ``(E, T + 1, ...)`` (names ``start_<field>`` for index 0
and ``<field>`` after each step), and each step's rewards, dones and infos ``(E, T, ...)``.

Two things JaxMARL 0.2.0 cannot run are worked around here, each a documented difference
(``docs/environments/jaxnav.md``):

- circular robots (``Grid-Rand``) have no wall-collision test there
  (``NotImplementedError``): they get the disc test the rest of JaxMARL's code uses for
  circles (``check_circle_map_collision``), which is ours;
- with ``fixed_lambda=False`` JaxMARL mixes rewards with the constructor's ``rew_lambda``
  instead of the episode's sampled one: with ``own_reward`` that constant is set to 1, so
  that JaxMARL's reward is each robot's own reward, from which the test mixes the
  expected reward with the episode's lambda.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

FIELDS = (
    "pos",
    "theta",
    "vel",
    "done",
    "term",
    "goal_reached",
    "move_term",
    "step",
    "ep_done",
    "goal",
    "map_data",
)
INFOS = ("NumC", "GoalR", "AgentC", "MapC", "TimeO", "Return")


def make_env(config: dict):
    from jaxmarl.environments.jaxnav import JaxNav, make_jaxnav_singleton
    from jaxmarl.environments.jaxnav.maps import grid_map

    def disc_collision(self, pos, theta, map_data):
        return self.check_circle_map_collision(pos, map_data)

    grid_map.GridMapCircleAgents.check_agent_map_collision = disc_collision
    if config.get("singleton"):
        env = make_jaxnav_singleton(config["singleton"], **config["env"])
    else:
        env = JaxNav(**config["env"])
    if config.get("own_reward"):
        env.rew_lambda = 1.0
    return env


def policy(env, key, obs: jax.Array, random_share: float) -> jax.Array:
    """Actions for every robot from its observation ``(n, obs_dim)`` (normalised)."""
    from jaxmarl.environments.jaxnav.jaxnav_env import DISCRETE_ACTS

    n, b = obs.shape[0], env.lidar_num_beams
    k_use, k_rand, k_noise = jax.random.split(key, 3)
    orient = obs[:, b + 3] * jnp.pi
    turn = jnp.clip(2.0 * orient + 0.2 * jax.random.normal(k_noise, (n,)), -jnp.pi / 6, jnp.pi / 6)
    speed = jnp.where(jnp.abs(orient) < 0.6, env.max_v, 0.25 * env.max_v)
    steer = jnp.stack([speed, turn], axis=-1)
    use_random = jax.random.uniform(k_use, (n,)) < random_share
    if env._act_type == "Discrete":
        nearest = jnp.argmin(jnp.sum((steer[:, None, :] - DISCRETE_ACTS[None]) ** 2, axis=-1), axis=1)
        return jnp.where(use_random, jax.random.randint(k_rand, (n,), 0, 15), nearest).astype(jnp.int32)
    low = jnp.array([env.min_v, -jnp.pi / 6])
    high = jnp.array([env.max_v, jnp.pi / 6])
    rand = jax.random.uniform(k_rand, (n, 2), minval=low, maxval=high)
    return jnp.where(use_random[:, None], rand, jnp.clip(steer, low, high)).astype(jnp.float32)


def record(config: dict, keys: jax.Array) -> dict:
    env = make_env(config)
    steps, share = int(config["steps"]), float(config["random_share"])

    def fields(state):
        out = {f: getattr(state, f) for f in FIELDS}
        out["rew_lambda"] = jnp.reshape(state.rew_lambda, ())
        return out

    def episode(key):
        key_reset, key_run = jax.random.split(key)
        obs, state = env.reset(key_reset)

        def body(carry, key):
            obs, state = carry
            key_act, key_step = jax.random.split(key)
            batch = jnp.stack([obs[a] for a in env.agents])
            acts = policy(env, key_act, batch, share)
            step = env.step if config.get("auto_reset", True) else env.step_env
            obs, state, reward, done, info = step(
                key_step, state, {a: acts[i] for i, a in enumerate(env.agents)}
            )
            out = fields(state)
            out["actions"] = acts
            out["obs"] = jnp.stack([obs[a] for a in env.agents])
            out["reward"] = jnp.stack([reward[a] for a in env.agents])
            out["dones"] = jnp.stack([done[a] for a in env.agents])
            out["done_all"] = done["__all__"]
            for name in INFOS:
                out[f"info_{name}"] = info[name]
            return (obs, state), out

        first = fields(state)
        first["obs"] = jnp.stack([obs[a] for a in env.agents])
        _, rest = jax.lax.scan(body, (obs, state), jax.random.split(key_run, steps))
        return first, rest

    # Compiled as the test compiles ours (tests/fast_compile.py): XLA's backend
    # optimisation level changes the last bit of some transcendental functions.
    first, rest = jax.jit(jax.vmap(episode), compiler_options={"xla_backend_optimization_level": 0})(keys)
    out = {f"start_{k}": np.asarray(v) for k, v in first.items()}
    out.update({k: np.asarray(v) for k, v in rest.items()})
    return out


def main(paths: list[str]) -> None:
    import time

    for src, dst in zip(paths[::2], paths[1::2], strict=True):
        t0 = time.perf_counter()
        with np.load(src) as data:
            config = json.loads(str(data["config"]))
            keys = jnp.asarray(data["keys"])
        with contextlib.redirect_stdout(io.StringIO()):  # JaxMARL prints while tracing
            out = record(config, keys)
        partial = Path(dst).with_suffix(".partial.npz")  # the test waits for dst: write it whole
        np.savez(partial, **out)
        os.replace(partial, dst)
        print(f"{Path(src).name}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
