"""The jitted device side of the adapters, shared by both, and seeding.

Each kernel takes the environment as a static argument, so it is traced and compiled
once per environment object (and set of compiler options), however many adapters
wrap that object; every later call runs the compiled code. Inputs always have the
same shapes and dtypes (actions are cast to their space's dtype on the host), so
nothing is traced again.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import MultiAgentEnv
from jaxmarl.environments.spaces import Discrete, MultiDiscrete

# Keys of the env's ``info`` the adapters report in their own way (or not at all).
_OWN_INFO = ("final_obs", "final_state", "truncated")


def key_from_seed(seed: int | None) -> jax.Array:
    """A PRNG key (``uint32 (2,)``) for ``seed``: ``jax.random.PRNGKey(seed)`` for seeds
    below ``2**32`` (and, for larger ones, what it gives with 64-bit mode on); a key
    from fresh OS entropy for ``None``.

    Raises:
        ValueError: for a seed that is not an integer in ``[0, 2**64)``.
    """
    if seed is None:
        words = np.random.SeedSequence().generate_state(2, dtype=np.uint32)
        return jnp.asarray(words, dtype=jnp.uint32)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed must be an integer in [0, 2**64) or None, got {seed!r}")
    seed = int(seed)
    return jnp.asarray([seed >> 32, seed & 0xFFFFFFFF], dtype=jnp.uint32)


def discrete_agents(env: Any) -> list[str]:
    """The agents with a ``Discrete`` or ``MultiDiscrete`` action space (they get masks)."""
    return [a for a in env.agents if isinstance(env.action_space(a), (Discrete, MultiDiscrete))]


def _masks(env: Any, state: Any) -> dict[str, jax.Array]:
    wanted = discrete_agents(env)
    if not wanted:
        return {}
    masks = env.get_avail_actions(state)
    return {a: jnp.asarray(masks[a], dtype=bool) for a in wanted}


def per_agent_info(env: Any, info: Mapping[str, Any]) -> dict[str, jax.Array]:
    """The env's ``info`` entries as arrays with a leading agent axis ``(num_agents, ...)``.

    An entry that is a dict keyed by the agents is stacked in agent order; an array
    whose leading dimension is ``num_agents`` is taken as one row per agent (the
    convention for per-agent info); any other array is given to every agent. Entries
    the adapters report themselves (``final_obs``, ``final_state``, ``truncated``) and
    nested dicts not keyed by the agents are left out.
    """
    agents, n = list(env.agents), env.num_agents
    out: dict[str, jax.Array] = {}
    for name, value in info.items():
        if name in _OWN_INFO:
            continue
        if isinstance(value, Mapping):
            if set(value) != set(agents):
                continue
            rows = [jnp.asarray(value[a]) for a in agents]
            if len({(r.shape, r.dtype) for r in rows}) == 1:
                out[name] = jnp.stack(rows)
            continue
        try:
            array = jnp.asarray(value)
        except TypeError:
            continue
        out[name] = (
            array if array.ndim >= 1 and array.shape[0] == n else jnp.broadcast_to(array, (n, *array.shape))
        )
    return out


class Kernels(NamedTuple):
    """Jitted functions of ``(env, ...)``, ``env`` static."""

    reset: Any
    step: Any
    reset_batch: Any
    step_batch: Any
    global_state: Any
    render: Any
    render_batch: Any


def _strong(tree: Any) -> Any:
    """``tree`` with weakly typed leaves made strong, so that a state that went through
    ``reset`` and one that went through ``step`` have the same types (some
    environments' ``step`` returns weakly typed scalars), and feeding either back in
    never traces again."""
    return jax.tree.map(lambda x: jnp.asarray(x, dtype=jnp.result_type(x)), tree)


def _reset(env: Any, key: jax.Array) -> tuple[jax.Array, Any, Any, dict[str, jax.Array]]:
    key, sub = jax.random.split(key)
    obs, state = env.reset(sub)
    return key, obs, _strong(state), _masks(env, state)


def _step_no_reset(env: Any, key: jax.Array, state: Any, actions: Any) -> tuple[Any, ...]:
    """``env.step`` where the automatic reset is not wanted (its result is dropped).

    A ``MultiAgentEnv`` is told to "reset" to ``state`` itself, which keeps the reset's
    computation (a physics simulation's, say) out of the compiled step.
    """
    if isinstance(env, MultiAgentEnv):
        return env.step(key, state, actions, state)
    return env.step(key, state, actions)


def _step(env: Any, key: jax.Array, state: Any, actions: Any) -> tuple[Any, ...]:
    """One step, the automatic reset hidden: returns the final observation and state."""
    key, sub = jax.random.split(key)
    _, _, reward, done, info = _step_no_reset(env, sub, state, actions)
    final_state = info["final_state"]
    return (
        key,
        info["final_obs"],
        _strong(final_state),
        reward,
        done,
        info["truncated"],
        _masks(env, final_state),
        per_agent_info(env, info),
    )


def _reset_batch(
    env: Any, key: jax.Array, num_copies: int
) -> tuple[jax.Array, Any, Any, dict[str, jax.Array]]:
    key, sub = jax.random.split(key)
    obs, state = jax.vmap(env.reset)(jax.random.split(sub, num_copies))
    return key, obs, _strong(state), jax.vmap(functools.partial(_masks, env))(state)


def _step_batch(env: Any, key: jax.Array, state: Any, actions: Any) -> tuple[Any, ...]:
    """One step of every copy, resetting those whose episode ends (same step)."""
    num_copies = jax.tree.leaves(state)[0].shape[0]
    key, sub = jax.random.split(key)
    obs, state, reward, done, info = jax.vmap(env.step)(jax.random.split(sub, num_copies), state, actions)
    masks = jax.vmap(functools.partial(_masks, env))
    return (
        key,
        obs,
        _strong(state),
        info["final_obs"],
        reward,
        done,
        info["truncated"],
        masks(state),
        masks(info["final_state"]),
        jax.vmap(functools.partial(per_agent_info, env))(info),
    )


def _global_state(env: Any, state: Any) -> jax.Array:
    return env.get_global_state(state)


def _render(env: Any, state: Any) -> jax.Array:
    return env.render(state)


def _render_batch(env: Any, state: Any) -> jax.Array:
    return jax.vmap(env.render)(state)


@functools.cache
def _kernels(options: tuple[tuple[str, Any], ...]) -> Kernels:
    jit = functools.partial(jax.jit, compiler_options=dict(options) or None)
    return Kernels(
        reset=jit(_reset, static_argnums=0),
        step=jit(_step, static_argnums=0),
        reset_batch=jit(_reset_batch, static_argnums=(0, 2)),
        step_batch=jit(_step_batch, static_argnums=0),
        global_state=jit(_global_state, static_argnums=0),
        render=jit(_render, static_argnums=0),
        render_batch=jit(_render_batch, static_argnums=0),
    )


def kernels(compiler_options: Mapping[str, Any] | None) -> Kernels:
    """The jitted kernels for these XLA ``compiler_options`` (``None``: XLA's defaults)."""
    return _kernels(tuple(sorted((compiler_options or {}).items())))


def build_env(env_or_id: Any, make_kwargs: Mapping[str, Any], adapter: str) -> tuple[Any, str]:
    """``(env, name)``: ``jaxmarl.make(id, **make_kwargs)`` for an id, else the object.

    Raises:
        TypeError: for keyword arguments given with an env object.
    """
    if isinstance(env_or_id, str):
        from jaxmarl.registration import make

        return make(env_or_id, **make_kwargs), env_or_id
    if make_kwargs:
        raise TypeError(
            f"{adapter}: keyword arguments {sorted(make_kwargs)} are passed to jaxmarl.make and need "
            f"an environment id, not an environment object"
        )
    return env_or_id, str(getattr(env_or_id, "name", type(env_or_id).__name__))


def to_numpy(tree: Any) -> Any:
    """A pytree of device arrays as writable NumPy arrays (one transfer)."""
    return jax.tree.map(np.array, jax.device_get(tree))
