"""IPPO (``baselines/ppo.py``) learns LevelBasedForaging far beyond a random policy.

The instance is the registered default's size (2 foragers, 2 food items on an 8x8 grid,
100-step episodes) with ``force_coop=False``: food levels are then drawn in ``1 .. m``
(``m`` the summed level of the foragers), so a forager can often eat alone. With the
default ``force_coop=True`` every item needs both foragers loading at once; a masked
uniformly random policy then earns 0.008 per agent and eats 1.7% of the food (1024
episodes), and IPPO (learning rate 2.5e-4) did not learn it in 2e5 steps.

Returns are normalised: eating everything pays 1 in all, 0.5 per agent on average. A
masked uniformly random policy earns 0.175 per agent and eats 42% of the food (1024
episodes from ``PRNGKey(1)``; the 256 the test measures give 0.161 and 38%). IPPO-FF after
2e5 steps (98 updates of 32 envs x 64 steps, learning rate 1e-3) earns 0.44-0.49 per agent
over seeds 0, 1 and 2 and eats 90-99% of the food, in 14-28 steps (seed 0, the test's:
0.49, 98%, 17 steps; 36 s on one core, compilation included). The test asks for a
return above 0.3 and 60% of the food eaten (a mean over the last 5 updates' episodes,
hundreds of them), far beyond the random policy's spread.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from fast_compile import jit as fast_jit
from fast_compile import long_run_jit

import jaxmarl
from baselines import common, ppo
from jaxmarl.environments.multi_agent_env import random_actions

ENV_KWARGS = "{grid_size:8,num_agents:2,num_food:2,force_coop:false}"


def random_policy(env, episodes: int = 256) -> tuple[float, float]:
    """A masked uniformly random policy's mean return per agent and percent eaten, over
    ``episodes`` whole episodes."""

    def episode(key):
        _, state = env.reset(key)

        def body(carry, key):
            state, running, ret, eaten = carry
            key_act, key_step = jax.random.split(key)
            _, state, reward, done, info = env.step(key_step, state, random_actions(env, key_act, state))
            ret = ret + running * jnp.mean(jnp.stack([reward[a] for a in env.agents]))
            eaten = jnp.where(running & done["__all__"], info["metrics"]["percent_eaten"], eaten)
            return (state, running & ~done["__all__"], ret, eaten), None

        init = (state, jnp.array(True), jnp.float32(0.0), jnp.float32(0.0))
        (_, _, ret, eaten), _ = jax.lax.scan(body, init, jax.random.split(key, env.max_steps))
        return ret, eaten

    ret, eaten = fast_jit(jax.vmap(episode))(jax.random.split(jax.random.PRNGKey(1), episodes))
    return float(ret.mean()), float(eaten.mean())


def test_ippo_eats_far_more_than_a_random_policy():
    config = common.compose_config(
        "ppo",
        [
            "alg=ippo_ff",
            "env=jumanji_lbf",
            "TOTAL_TIMESTEPS=2e5",
            "NUM_ENVS=32",
            "NUM_STEPS=64",
            "LR=1e-3",
            f"+ENV_KWARGS={ENV_KWARGS}",
        ],
    )
    env = jaxmarl.make(config["ENV_NAME"], **config["ENV_KWARGS"])
    assert (env.grid_size, env.num_agents, env.num_food, env.max_steps) == (8, 2, 2, 100)
    random_return, random_eaten = random_policy(env)

    out = long_run_jit(ppo.make_train(config))(common.seed_keys(config)[0])
    metrics = {k: np.asarray(v) for k, v in out["metrics"].items()}
    trained_return = float(np.nanmean(metrics["return_mean"][-5:]))
    trained_eaten = float(np.nanmean(metrics["percent_eaten"][-5:]))
    summary = (
        f"return {trained_return:.3f}, eaten {trained_eaten:.1f}% "
        f"(random policy: {random_return:.3f}, {random_eaten:.1f}%)"
    )
    assert 0.1 < random_return < 0.25 and random_eaten < 50, summary
    assert trained_return > 0.3, summary
    assert trained_eaten > 60, summary
