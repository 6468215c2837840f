"""Trained policies from run folders: ``policy = jaxmarl.load_policy(run_dir)``.

A run folder written by a training script (``python baselines/ppo.py ...``,
``python baselines/qlearning.py ...``) holds its configuration and every seed's
parameters. :func:`load_policy` rebuilds the environment and the network the run
trained, so a notebook can act with it, roll it out, render it or evaluate it, with no
``sys.path`` edits. It needs the training scripts, which install with the repository
(``pip install -e ".[baselines]"``, the ``baselines`` package).

Example::

    import jax, jaxmarl

    policy = jaxmarl.load_policy("outputs/2026-11-24/12-00-00_ippo_ff_MPE_simple_spread_v3")
    env = policy.env                           # the environment it was trained on
    obs, state = env.reset(jax.random.PRNGKey(0))
    hidden = policy.init_hidden()
    actions, hidden = policy.act(jax.random.PRNGKey(1), obs, state, hidden)
    states = policy.rollout(jax.random.PRNGKey(2), num_steps=50)   # e.g. for jaxmarl.viz
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

__all__ = ["RunPolicies", "TrainedPolicy", "load_policy", "load_run_policies"]


class TrainedPolicy:
    """One seed's trained policy, for one environment at a time (``jax.vmap`` it to batch).

    Attributes:
        env: the environment the run trained on, as ``jaxmarl.make`` builds it.
        config: the run's resolved configuration.
        params: this seed's parameters.
        seed: which of the run's seeds it is.
        greedy: act with the most likely action (the Gaussian mean for continuous
            actions; epsilon 0 for Q-learning) instead of sampling.
    """

    def __init__(self, config: dict, params: Any, family: Any, seed: int, greedy: bool) -> None:
        self.config = config
        self.params = params
        self.seed = seed
        self.greedy = greedy
        self.env, self._init_hidden, self._act = family.make_policy(config)

    def init_hidden(self) -> jax.Array:
        """The recurrent state at the start of an episode, ``(num_agents, hidden)`` (unused
        by feed-forward networks, but always passed)."""
        return self._init_hidden()

    def act(
        self, key: jax.Array, obs: dict, state: Any, hidden: jax.Array | None = None, new_episode: Any = False
    ) -> tuple[dict[str, jax.Array], jax.Array]:
        """Actions for every agent of one environment, respecting its action masks.

        Args:
            key: PRNG key (for sampled actions).
            obs: the observations, keyed by agent.
            state: the environment's state (for the action masks).
            hidden: the recurrent state (``init_hidden()`` at an episode's start; ``None``
                means that).
            new_episode: whether ``obs`` is the first of an episode (zeroes ``hidden``
                for recurrent networks, e.g. after ``done["__all__"]``).

        Returns:
            ``(actions, hidden)``: actions keyed by agent, and the next recurrent state.
        """
        if hidden is None:
            hidden, new_episode = self.init_hidden(), True
        hidden, actions = self._act(
            self.params, hidden, obs, state, jnp.asarray(new_episode), key, self.greedy
        )
        return actions, hidden

    def rollout(self, key: jax.Array, num_steps: int) -> Any:
        """The states of one episode stream of ``num_steps`` steps played by the policy
        (the first from ``reset``; episodes restart automatically), stacked on a leading
        axis, e.g. for ``jaxmarl.viz.render_states(policy.env, states)``."""
        env = self.env
        key, key_reset = jax.random.split(key)

        def run(key: jax.Array) -> Any:
            obs, state = env.reset(key_reset)

            def step(carry: tuple, key: jax.Array) -> tuple[tuple, Any]:
                obs, state, hidden, new = carry
                key_act, key_step = jax.random.split(key)
                actions, hidden = self.act(key_act, obs, state, hidden, new)
                obs, state, _, done, _ = env.step(key_step, state, actions)
                return (obs, state, hidden, done["__all__"]), state

            carry = (obs, state, self.init_hidden(), jnp.array(True))
            _, states = jax.lax.scan(step, carry, jax.random.split(key, num_steps - 1))
            return jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), state, states)

        return jax.jit(run)(key)

    def __repr__(self) -> str:
        return (
            f"TrainedPolicy({self.config['ALG_NAME']} on {self.config['ENV_NAME']}, seed {self.seed}, "
            f"greedy={self.greedy})"
        )


def load_policy(
    run_dir: str | Path,
    seed: int = 0,
    greedy: bool = True,
    env_name: str | None = None,
    env_kwargs: dict | None = None,
) -> TrainedPolicy:
    """Load seed ``seed`` of the finished training run in ``run_dir``.

    Args:
        run_dir: a run folder (holds ``config.yaml`` and ``params.msgpack``).
        seed: which of the run's ``NUM_SEEDS`` seeds.
        greedy: act with the most likely action instead of sampling.
        env_name, env_kwargs: play another environment than the one the run trained on
            (e.g. more agents or another map, to test generalisation); see
            :func:`load_run_policies`.

    Raises:
        ImportError: without the training scripts (``pip install -e ".[baselines]"``).
        ValueError: if ``run_dir`` is not a finished run folder, ``seed`` is not one of its
            seeds, or the other environment's spaces do not fit the trained network.
    """
    config, params, family = _load(run_dir, env_name, env_kwargs)
    num_seeds = int(jax.tree.leaves(params)[0].shape[0])
    if not 0 <= int(seed) < num_seeds:
        raise ValueError(
            f"seed must be in [0, {num_seeds}) for {run_dir} (NUM_SEEDS={num_seeds}), got {seed}"
        )
    seed_params = jax.tree.map(lambda x: x[int(seed)], params)
    return TrainedPolicy(config, seed_params, family, int(seed), bool(greedy))


class RunPolicies(NamedTuple):
    """Every seed of a finished run, ready for :mod:`jaxmarl.evaluation.episodes`."""

    env: Any  # the environment played, as jaxmarl.make builds it
    init_hidden: Any  # () -> (num_agents, hidden)
    act: Any  # (params, hidden, obs, state, resets, key, greedy) -> (hidden, actions)
    params: Any  # every seed's parameters, leading axis = seed
    config: dict  # the run's configuration (with the environment played)


def load_run_policies(
    run_dir: str | Path, env_name: str | None = None, env_kwargs: dict | None = None
) -> RunPolicies:
    """Every seed's policy of the finished run in ``run_dir``, optionally on another
    environment than the one it trained on.

    ``env_name`` (default: the run's) and ``env_kwargs`` (default: the run's when the
    name is the run's, else none) choose the environment. Its agents must see
    observations and take actions of the sizes the network was trained on (e.g. CAMAR
    with another map or agent count: its observation does not depend on either).

    Raises:
        ImportError: without the training scripts.
        ValueError: if ``run_dir`` is not a finished run folder, or the environment's
            stacked observations or actions differ in size from the run's.
    """
    config, params, family = _load(run_dir, env_name, env_kwargs)
    env, init_hidden, act = family.make_policy(config)
    return RunPolicies(env, init_hidden, act, params, config)


def _load(run_dir: str | Path, env_name: str | None, env_kwargs: dict | None) -> tuple[dict, Any, Any]:
    """The run's config (its environment replaced if asked), parameters and script."""
    try:
        from baselines import runs
    except ImportError as err:  # pragma: no cover - the baselines install with the repository
        raise ImportError(
            'load_policy needs the training scripts: pip install -e ".[baselines]" from a clone of jaxmarl'
        ) from err
    config, params = runs.load_run(run_dir)  # a ValueError (RunError) if it is not a finished run
    family = importlib.import_module(f"baselines.{config['ALG_FAMILY']}")
    if env_name is None and env_kwargs is None:
        return config, params, family
    import jaxmarl
    from jaxmarl.wrappers.batching import AgentBatcher

    trained = AgentBatcher(jaxmarl.make(config["ENV_NAME"], **(config.get("ENV_KWARGS") or {})))
    name = config["ENV_NAME"] if env_name is None else env_name
    if env_kwargs is None:
        env_kwargs = (config.get("ENV_KWARGS") or {}) if name == config["ENV_NAME"] else {}
    played = AgentBatcher(jaxmarl.make(name, **env_kwargs))
    want = (trained.obs_dim, trained.action_dim, trained.kind.replace("_", "-"))
    got = (played.obs_dim, played.action_dim, played.kind.replace("_", "-"))
    if want != got:
        raise ValueError(
            f"{run_dir} trained on {config['ENV_NAME']} (observation {want[0]}, "
            f"{want[2]} actions {want[1]}); {name} with {env_kwargs} "
            f"gives observation {got[0]}, {got[2]} actions {got[1]}"
        )
    return {**config, "ENV_NAME": name, "ENV_KWARGS": dict(env_kwargs)}, params, family
