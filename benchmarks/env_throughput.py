"""Environment throughput: env steps per second with uniformly random actions.

The method of the JaxMARL paper's Table 3: ``N`` copies of the environment are vmapped
and stepped ``--num-steps`` times inside one ``jax.lax.scan`` under one ``jit``, with
random actions drawn on the device (among the legal ones where the env's action masks
forbid anything, ``space.sample`` otherwise).
Compilation is timed separately from execution; after one warm-up run, execution is
timed ``--repeats`` times. One env step is one joint step of all agents in one
environment.

    python benchmarks/env_throughput.py --env MPE_simple_spread_v3 --num-envs 1 100 1000
    python benchmarks/env_throughput.py --env HeuristicEnemySMAX@27m_vs_30m --num-envs 1 100

An env is named by its registered id, or ``ID@MAP`` for a SMAX map: the env is then
built with ``scenario=map_name_to_scenario(MAP)`` from the library's own SMAX package.
Either may end in ``:KEY=VALUE,...``, keyword arguments for ``make``:
``hopper_3x1:backend=positional``.

This file is also the worker the harness (``python -m benchmarks.run``) runs in each
library's own virtual environment, so it uses nothing but the API every JaxMARL-style
library shares (``make``, ``reset``, ``step``, spaces' ``sample``, ``get_avail_actions``)
and imports nothing else from the package under test.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import statistics
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp


def parse_bench_id(bench_id: str) -> tuple[str, str, dict[str, Any]]:
    """Split ``ID[@MAP][:KEY=VALUE,...]`` into the registered id, the SMAX map name (or
    ``""``) and the keyword arguments for ``make`` (values read as int, float or bool
    where they parse as one)."""
    name, _, options = bench_id.partition(":")
    env_id, _, map_name = name.partition("@")
    kwargs: dict[str, Any] = {}
    for item in filter(None, options.split(",")):
        key, sep, text = item.partition("=")
        if not sep or not key:
            raise ValueError(f"bad option {item!r} in benchmark id {bench_id!r}: expected KEY=VALUE")
        kwargs[key] = _option_value(text)
    return env_id, map_name, kwargs


def _option_value(text: str) -> Any:
    if text.lower() in ("true", "false"):
        return text.lower() == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def make_env(jaxmarl: Any, bench_id: str) -> Any:
    """The env a benchmark id names: ``ID``, ``ID@MAP`` (a SMAX map name), either with
    ``:KEY=VALUE,...`` keyword arguments for ``make`` (``hopper_3x1:backend=positional``)."""
    env_id, map_name, kwargs = parse_bench_id(bench_id)
    if map_name:
        from jaxmarl.environments.smax import map_name_to_scenario

        kwargs["scenario"] = map_name_to_scenario(map_name)
    if env_id == "LearnedPolicyEnemySMAX" and "policy" not in kwargs:
        kwargs.update(enemy_policy(jaxmarl, kwargs))
    return jaxmarl.make(env_id, **kwargs)


def enemy_policy(jaxmarl: Any, smax_kwargs: dict[str, Any]) -> dict[str, Any]:
    """``policy`` and ``params`` for ``LearnedPolicyEnemySMAX``, which JaxMARL cannot build
    without them: one dense layer from an enemy's observation to its action logits,
    sampled like a distrax ``Categorical`` (``pi.sample(seed=key)``), as JaxMARL's
    tutorial policy (``(pi, value)``), using only Flax."""
    import flax.linen as nn

    class Categorical:
        def __init__(self, logits: jax.Array) -> None:
            self.logits = logits

        def sample(self, seed: jax.Array) -> jax.Array:
            return jax.random.categorical(seed, self.logits)

    class Policy(nn.Module):
        num_actions: int

        @nn.compact
        def __call__(self, obs: jax.Array) -> tuple[Categorical, jax.Array]:
            return Categorical(nn.Dense(self.num_actions)(obs)), jnp.zeros(obs.shape[:-1])

    smax = jaxmarl.make("SMAX", **smax_kwargs)
    enemy = smax.agents[-1]
    policy = Policy(int(smax.action_space(enemy).n))
    params = policy.init(jax.random.PRNGKey(0), jnp.zeros(smax.observation_space(enemy).shape))
    return {"policy": policy, "params": params}


def available(jaxmarl: Any, bench_ids: list[str]) -> list[str]:
    """Those of ``bench_ids`` this library has: a registered id, a known map, and
    keyword arguments its ``make`` accepts (such ids are built to find out)."""
    registered: Any = jaxmarl.registered_envs  # a sequence; a plain list in JaxMARL 0.2.0
    names = set(registered() if callable(registered) else registered)
    found = []
    for bench_id in bench_ids:
        env_id, map_name, kwargs = parse_bench_id(bench_id)
        if env_id not in names:
            continue
        if map_name or kwargs:
            try:
                make_env(jaxmarl, bench_id)
            except Exception:  # an unknown map or keyword, or no SMAX package at all
                continue
        found.append(bench_id)
    return found


def restricts_actions(env: Any, num_states: int = 16) -> bool:
    """Whether the env's action masks forbid anything in a few freshly reset states.

    Only then are actions drawn from the masks: an env whose masks are all ones (MPE,
    STORM ...) gets ``space.sample`` like one without masks, so two libraries that
    differ only in whether they expose trivial masks do the same sampling work."""
    try:
        _, states = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), num_states))
        masks = jax.vmap(env.get_avail_actions)(states)
    except (AttributeError, NotImplementedError):
        return False
    return any(not bool(jnp.all(jnp.asarray(m) > 0)) for m in masks.values())


def sample_actions(env: Any, key: jax.Array, state: Any, masked: bool) -> dict[str, jax.Array]:
    """Uniformly random actions for one environment: among the legal ones if ``masked``
    (see ``restricts_actions``), from ``space.sample`` otherwise."""
    keys = jax.random.split(key, env.num_agents)
    masks = env.get_avail_actions(state) if masked else None
    actions = {}
    for i, agent in enumerate(env.agents):
        space = env.action_space(agent)
        if masks is not None and hasattr(space, "n") and not hasattr(space, "low"):
            logits = jnp.where(jnp.asarray(masks[agent]) > 0, 0.0, -jnp.inf)
            actions[agent] = jax.random.categorical(keys[i], logits).astype(space.dtype)
        else:
            actions[agent] = space.sample(keys[i])
    return actions


def make_rollout(env: Any, num_envs: int, num_steps: int) -> Any:
    """A jitted function running ``num_envs`` envs for ``num_steps`` random steps."""

    masked = restricts_actions(env)

    def rollout(key: jax.Array) -> jax.Array:
        key, key_reset = jax.random.split(key)
        _, state = jax.vmap(env.reset)(jax.random.split(key_reset, num_envs))

        def body(carry: tuple[Any, jax.Array], _: None) -> tuple[tuple[Any, jax.Array], jax.Array]:
            state, key = carry
            key, key_act, key_step = jax.random.split(key, 3)
            actions = jax.vmap(sample_actions, in_axes=(None, 0, 0, None))(
                env, jax.random.split(key_act, num_envs), state, masked
            )
            _, state, reward, _, _ = jax.vmap(env.step)(jax.random.split(key_step, num_envs), state, actions)
            return (state, key), jnp.sum(reward[env.agents[0]])

        (_, _), rewards = jax.lax.scan(body, (state, key), None, num_steps)
        return rewards.sum()

    return jax.jit(rollout)


def state_bytes(env: Any) -> int:
    """Bytes of one environment's state, as ``reset`` returns it."""
    _, state = jax.eval_shape(env.reset, jax.random.PRNGKey(0))
    return sum(int(math.prod(leaf.shape)) * leaf.dtype.itemsize for leaf in jax.tree.leaves(state))


def measure(env: Any, num_envs: int, num_steps: int, repeats: int) -> dict[str, Any]:
    """Compile seconds, the ``repeats`` timed runs, their median in env steps/s, and
    memory: the bytes of one env's state and the compiled rollout's scratch memory
    (XLA's ``temp_size_in_bytes``, NaN where the backend does not report it) per env."""
    run = make_rollout(env, num_envs, num_steps)
    t0 = time.perf_counter()
    compiled = run.lower(jax.random.PRNGKey(0)).compile()
    compile_s = time.perf_counter() - t0
    memory = compiled.memory_analysis()
    temp_bytes = float(memory.temp_size_in_bytes) if memory is not None else float("nan")
    compiled(jax.random.PRNGKey(0)).block_until_ready()  # warm-up
    run_s = []
    for i in range(repeats):
        t0 = time.perf_counter()
        compiled(jax.random.PRNGKey(i + 1)).block_until_ready()
        run_s.append(time.perf_counter() - t0)
    return {
        "num_envs": num_envs,
        "num_steps": num_steps,
        "compile_s": compile_s,
        "run_s": run_s,
        "steps_per_s": num_envs * num_steps / statistics.median(run_s),
        "state_bytes": state_bytes(env),
        "temp_bytes_per_env": temp_bytes / num_envs,
    }


def peer_main(
    peer: str, description: str, has_env: Callable[[str], bool], make_env: Callable[[str], Any]
) -> None:
    """The command line of a JAX peer's worker (``benchmarks/peers/<peer>_throughput.py``):
    ``--list ENV ...`` prints (JSON) the bench ids the peer has; ``--env ID`` measures the
    peer's env from ``make_env(ID)`` with :func:`measure`, one JSON line per ``--num-envs``."""
    parser = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--env")
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--num-steps", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true", help="ignored: the output is always JSON")
    parser.add_argument(
        "--list", nargs="*", metavar="ENV", help=f"print (JSON) which of these {peer} has, and exit"
    )
    args = parser.parse_args()
    if args.list is not None:
        print(json.dumps([bench_id for bench_id in args.list if has_env(bench_id)]))
        return
    if not args.env:
        parser.error("--env is required")
    env = make_env(args.env)
    for n in args.num_envs:
        result = measure(env, n, args.num_steps, args.repeats)
        print(json.dumps({"env": args.env, **result}), flush=True)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--env",
        default="MPE_simple_spread_v3",
        help="registered id, ID@MAP for SMAX, either with :KEY=VALUE,... for make",
    )
    parser.add_argument("--num-envs", type=int, nargs="+", default=[1, 100, 1000])
    parser.add_argument("--num-steps", type=int, default=1000, help="steps per scan (default 1000)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per setting (median is kept)")
    parser.add_argument("--json", action="store_true", help="print one JSON line per setting")
    parser.add_argument(
        "--list",
        nargs="*",
        metavar="ENV",
        help="print (JSON) which of these env ids are registered, and exit",
    )
    args = parser.parse_args(argv)

    import jaxmarl  # the package of whichever virtual environment runs this file

    if args.list is not None:
        print(json.dumps(available(jaxmarl, args.list)))
        return
    env = make_env(jaxmarl, args.env)
    device = jax.devices()[0]
    if not args.json:
        print(f"{args.env} on {device.platform} ({device.device_kind}, {platform.processor() or 'cpu'})")
        print(f"{'num_envs':>9} {'steps/s':>12} {'compile s':>10}")
    for n in args.num_envs:
        result = measure(env, n, args.num_steps, args.repeats)
        if args.json:
            print(json.dumps({"env": args.env, **result}), flush=True)
        else:
            print(f"{n:>9} {result['steps_per_s']:>12.3g} {result['compile_s']:>10.2f}")


if __name__ == "__main__":
    main()
