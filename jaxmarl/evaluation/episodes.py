"""Whole evaluation episodes of a policy on fixed keys, with the environment's metrics.

The unit of every evaluation protocol: a policy plays one episode per key, from
``reset`` until ``done["__all__"]`` (or ``max_steps``), and the episode yields each
agent's return and the values of the environment's episode metrics
(``env.episode_metrics``: SMAX's ``win_rate``, CAMAR's ``success_rate`` ...). Every
algorithm evaluated on the same keys plays the same episodes (same maps, starts and
goals; the same environment randomness wherever the actions agree).

A policy is ``act(hidden, obs, state, resets, key) -> (hidden, actions)`` for one
environment: ``obs`` and ``actions`` keyed by agent, ``state`` the environment's state
(for action masks), ``resets`` true on an episode's first step (recurrent networks zero
their state). A training script's ``make_policy(config)`` gives
``(env, init_hidden, act_with_params)``; :func:`policy_outcomes` plays every seed's
parameters at once.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import random_actions

__all__ = ["episode_outcome", "policy_outcomes", "random_outcomes"]


def episode_outcome(
    env: Any, act: Any, hidden0: Any, key: jax.Array, max_steps: int
) -> tuple[jax.Array, dict[str, jax.Array]]:
    """Per-agent return ``(num_agents,)`` of one episode played by ``act``, and its values
    of the environment's episode metrics (name -> ``()``, added up by each metric's rule;
    NaN if the episode did not end within ``max_steps``). ``act`` gets ``env``'s states.

    ``hidden0`` is the policy's initial carry, or a function of the episode's first state
    that returns it (e.g. a planner's paths, computed once per episode)."""
    key, key_reset = jax.random.split(key)
    obs, state = env.reset(key_reset)
    if callable(hidden0):
        hidden0 = hidden0(state)
    rules = dict(getattr(env, "episode_metrics", {}) or {})

    def step(carry: tuple, key: jax.Array) -> tuple[tuple, None]:
        obs, state, hidden, returns, metrics, finished, resets = carry
        key_act, key_step = jax.random.split(key)
        hidden, actions = act(hidden, obs, state, resets, key_act)
        obs, state, reward, done, info = env.step(key_step, state, actions)
        rewards = jnp.stack([reward[a] for a in env.agents])
        returns = returns + jnp.where(finished, 0.0, rewards)
        values = info.get("metrics", {})
        metrics = {
            n: jnp.where(finished, metrics[n], metrics[n] + values[n] if rule == "sum" else values[n])
            for n, rule in rules.items()
        }
        return (obs, state, hidden, returns, metrics, finished | done["__all__"], jnp.array(False)), None

    zero = {n: jnp.float32(0.0) for n in rules}
    carry = (obs, state, hidden0, jnp.zeros(env.num_agents), zero, jnp.array(False), jnp.array(True))
    (_, _, _, returns, metrics, finished, _), _ = jax.lax.scan(step, carry, jax.random.split(key, max_steps))
    return returns, {n: jnp.where(finished, v, jnp.nan) for n, v in metrics.items()}


def policy_outcomes(
    env: Any,
    init_hidden: Any,
    act: Any,
    params: Any,
    keys: jax.Array,
    greedy: bool,
    max_steps: int,
    compiler_options: dict | None = None,
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """Every seed's policy on every key: per-agent returns ``(seeds, episodes, agents)``
    and the episode metrics (name -> ``(seeds, episodes)``).

    ``(env, init_hidden, act)`` is what a training script's ``make_policy(config)``
    returns, ``act(params, hidden, obs, state, resets, key, greedy)``; ``params`` has a
    leading seed axis. One compilation serves every seed."""

    def one_seed(seed_params: Any) -> tuple:
        def play(key: jax.Array) -> tuple:
            policy = lambda h, o, s, r, k: act(seed_params, h, o, s, r, k, greedy)  # noqa: E731
            return episode_outcome(env, policy, init_hidden(), key, max_steps)

        return jax.vmap(play)(keys)

    out = jax.jit(jax.vmap(one_seed), compiler_options=compiler_options)(params)
    return jax.tree.map(np.asarray, out)


def random_outcomes(
    env: Any, init_hidden: Any, keys: jax.Array, max_steps: int, compiler_options: dict | None = None
) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """A uniformly random policy (legal actions only) on every key: per-agent returns
    ``(episodes, agents)`` and the episode metrics (name -> ``(episodes,)``)."""

    def play(key: jax.Array) -> tuple:
        policy = lambda h, o, s, r, k: (h, random_actions(env, k, s))  # noqa: E731
        return episode_outcome(env, policy, init_hidden(), key, max_steps)

    out = jax.jit(jax.vmap(play), compiler_options=compiler_options)(keys)
    return jax.tree.map(np.asarray, out)
