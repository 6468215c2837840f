"""Evaluate a finished training run: returns over fixed evaluation keys, and a GIF.

    python baselines/evaluate.py run=outputs/<run-folder>
    python baselines/evaluate.py run=outputs/<run-folder> EVAL_EPISODES=256 GREEDY=true

Every seed's trained policy plays ``EVAL_EPISODES`` episodes whose keys are fixed
(``split(PRNGKey(EVAL_SEED), EVAL_EPISODES)``), and so does a uniformly random policy,
on the same keys. The returns (per agent, summed over the episode) are printed and
written to ``<run>/eval/eval.json``; seed 0's policy is rendered to
``<run>/eval/policy.gif``. Works for any run whose script (``ALG_FAMILY`` in the run's
config) provides ``make_policy(config)``.
"""

from __future__ import annotations

import importlib
import json
import logging
from pathlib import Path
from typing import Any, cast

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import random_actions
from jaxmarl.viz import render_states, save_gif


def episode_returns(env: Any, act: Any, hidden0: jax.Array, key: jax.Array, max_steps: int) -> jax.Array:
    """Per-agent return ``(num_agents,)`` of one episode played by ``act``."""
    key, key_reset = jax.random.split(key)
    obs, state = env.reset(key_reset)

    def step(carry: tuple, key: jax.Array) -> tuple[tuple, None]:
        obs, state, hidden, returns, finished, resets = carry
        key_act, key_step = jax.random.split(key)
        hidden, actions = act(hidden, obs, state, resets, key_act)
        obs, state, reward, done, _ = env.step(key_step, state, actions)
        rewards = jnp.stack([reward[a] for a in env.agents])
        returns = returns + jnp.where(finished, 0.0, rewards)
        return (obs, state, hidden, returns, finished | done["__all__"], jnp.array(False)), None

    carry = (obs, state, hidden0, jnp.zeros(env.num_agents), jnp.array(False), jnp.array(True))
    (_, _, _, returns, _, _), _ = jax.lax.scan(step, carry, jax.random.split(key, max_steps))
    return returns


def returns_on_keys(
    env: Any,
    init_hidden: Any,
    act: Any,
    params: Any,
    keys: jax.Array,
    greedy: bool,
    max_steps: int,
    compiler_options: dict | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Per-agent returns of every seed's policy, ``(seeds, episodes, agents)``, and of a
    uniformly random policy, ``(episodes, agents)``, on the same episode keys.

    ``(env, init_hidden, act)`` is what a script's ``make_policy(config)`` returns and
    ``params`` its parameters with a leading seed axis."""

    def trained(seed_params: Any) -> jax.Array:
        def play(key: jax.Array) -> jax.Array:
            policy = lambda h, o, s, r, k: act(seed_params, h, o, s, r, k, greedy)  # noqa: E731
            return episode_returns(env, policy, init_hidden(), key, max_steps)

        return jax.vmap(play)(keys)  # (episodes, agents)

    def random_play(key: jax.Array) -> jax.Array:
        policy = lambda h, o, s, r, k: (h, random_actions(env, k, s))  # noqa: E731
        return episode_returns(env, policy, init_hidden(), key, max_steps)

    ours = jax.jit(jax.vmap(trained), compiler_options=compiler_options)(params)
    rand = jax.jit(jax.vmap(random_play), compiler_options=compiler_options)(keys)
    return np.asarray(ours), np.asarray(rand)


def evaluate(run_dir: Path, eval_cfg: dict) -> dict:
    """Evaluate every seed of the run in ``run_dir`` and a random policy on the same keys."""
    import common

    config, params = common.load_run(run_dir)
    family = importlib.import_module(config["ALG_FAMILY"])
    env, init_hidden, act = family.make_policy(config)
    max_steps = int(getattr(env, "max_steps", None) or eval_cfg["MAX_STEPS"])
    keys = jax.random.split(jax.random.PRNGKey(int(eval_cfg["EVAL_SEED"])), int(eval_cfg["EVAL_EPISODES"]))
    greedy = bool(eval_cfg["GREEDY"])
    ours, rand = returns_on_keys(env, init_hidden, act, params, keys, greedy, max_steps)
    agents = list(env.agents)
    result = {
        "env": config["ENV_NAME"],
        "alg": config["ALG_NAME"],
        "episodes": int(eval_cfg["EVAL_EPISODES"]),
        "eval_seed": int(eval_cfg["EVAL_SEED"]),
        "greedy": greedy,
        "return_mean_per_seed": ours.mean(axis=(1, 2)).tolist(),
        "return_mean": float(ours.mean()),
        "return_per_agent": dict(zip(agents, ours.mean(axis=(0, 1)).tolist(), strict=True)),
        "random_return_mean": float(rand.mean()),
        "random_return_per_agent": dict(zip(agents, rand.mean(axis=0).tolist(), strict=True)),
    }
    if int(eval_cfg["GIF_STEPS"]) > 0:
        result["gif"] = str(
            write_gif(env, act, init_hidden, jax.tree.map(lambda x: x[0], params), eval_cfg, run_dir)
        )
    return result


def write_gif(env: Any, act: Any, init_hidden: Any, params: Any, eval_cfg: dict, run_dir: Path) -> Path:
    """Render seed 0's policy for ``GIF_STEPS`` steps to ``<run>/eval/policy.gif``."""
    greedy = bool(eval_cfg["GREEDY"])
    key, key_reset = jax.random.split(jax.random.PRNGKey(int(eval_cfg["EVAL_SEED"])))
    obs, state = env.reset(key_reset)

    def step(carry: tuple, key: jax.Array) -> tuple[tuple, Any]:
        obs, state, hidden, resets = carry
        key_act, key_step = jax.random.split(key)
        hidden, actions = act(params, hidden, obs, state, resets, key_act, greedy)
        obs, state, _, done, _ = env.step(key_step, state, actions)
        return (obs, state, hidden, done["__all__"]), state

    run = jax.jit(lambda k: jax.lax.scan(step, (obs, state, init_hidden(), jnp.array(True)), k)[1])
    states = run(jax.random.split(key, int(eval_cfg["GIF_STEPS"])))
    states = jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), state, states)
    frames = render_states(env.unwrapped, states.env_state if hasattr(states, "env_state") else states)
    return save_gif(frames, run_dir / "eval" / "policy.gif")


def main() -> None:
    import hydra
    from omegaconf import OmegaConf

    @hydra.main(version_base=None, config_path="config", config_name="evaluate")
    def _main(cfg: Any) -> None:
        logging.getLogger("jax").setLevel(logging.WARNING)
        eval_cfg = cast(dict, OmegaConf.to_container(cfg, resolve=True))
        run_dir = Path(eval_cfg["run"])
        result = evaluate(run_dir, eval_cfg)
        out = run_dir / "eval" / "eval.json"
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=2))
        header = f"{result['alg']} on {result['env']}: {result['episodes']} episodes per seed"
        print(f"{header} (eval seed {result['eval_seed']})")
        for seed, ret in enumerate(result["return_mean_per_seed"]):
            print(f"  seed {seed}: return {ret:.3f} (mean over episodes and agents)")
        print(f"  random policy: return {result['random_return_mean']:.3f}")
        print(f"wrote {out}" + (f" and {result['gif']}" if "gif" in result else ""))

    _main()


if __name__ == "__main__":
    main()
