"""IPPO and MAPPO for every registered jaxmarl environment, many seeds in one call.

    python baselines/ppo.py                                   # IPPO-FF on MPE_simple_spread_v3
    python baselines/ppo.py alg=mappo_rnn env=mpe_simple_tag NUM_SEEDS=8
    python baselines/ppo.py alg=ippo_ff env=mpe_simple_spread wandb.mode=offline

PPO (Schulman et al., 2017) with one set of parameters shared by all agents
(de Witt et al., 2020; Yu et al., 2022). IPPO and MAPPO differ only in what the critic
sees: the agent's own observation (``CRITIC: local``) or the environment's centralised
state, ``env.get_global_state``, plus a one-hot agent id (``CRITIC: world``). Networks
are feed-forward or GRU (``NETWORK: ff | rnn``), separate for the actor and the critic
or, for IPPO, on one torso (``SHARED_TORSO``).

What PPO shares with A2C (distributions, networks, padding of heterogeneous agents, the
rollout with its bootstrapping at time limits, GAE, acting with trained parameters) is in
:mod:`baselines.actor_critic`. This file reads top to bottom as what is PPO's own: the
clipped loss, the epochs of minibatch updates, ``make_learner(config)`` (the loop as
``init`` and ``update``, which the command line runs in checkpointed slices),
``make_train(config)`` returning a pure ``train(rng)``, and the hydra ``main``.
Configuration: ``baselines/config/ppo`` (``alg/`` and ``env/`` groups).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import optax
from flax.training.train_state import TrainState

from baselines import actor_critic, runs
from baselines.actor_critic import RunnerState, gae, make_rollout, run_networks, setup
from baselines.common import Learner, episode_metrics, permutation

# evaluate.py and jaxmarl.load_policy act with a run's parameters through its script.
make_policy = actor_critic.make_policy


def make_learner(config: dict, progress: Any = None) -> Learner:
    """The training loop of ``config`` as a :class:`~baselines.common.Learner`:
    ``init(rng)`` and ``update(runner, index)``, pure and jittable.

    ``progress(update, return_mean, *env_metrics)``, if given, is called from inside the
    loop (through ``jax.debug.callback``) after every update."""
    s = setup(config)
    rollout = make_rollout(config, s)
    metric_names = runs.env_metric_names(s.env)
    num_envs, num_actors = s.num_envs, s.num_actors
    num_steps, gamma = int(config["NUM_STEPS"]), float(config["GAMMA"])
    minibatches, epochs = int(config["NUM_MINIBATCHES"]), int(config["UPDATE_EPOCHS"])
    clip_eps = float(config["CLIP_EPS"])
    recurrent = config["NETWORK"] == "rnn"
    world_critic = config["CRITIC"] == "world"
    batch_axis = num_actors if recurrent else num_steps * num_actors
    if batch_axis % minibatches:
        what = "NUM_ENVS * num_agents" if recurrent else "NUM_STEPS * NUM_ENVS * num_agents"
        raise ValueError(f"NUM_MINIBATCHES={minibatches} must divide {what} = {batch_axis}")
    mb_size = batch_axis // minibatches  # actors (recurrent) or steps (feed-forward) per minibatch

    def schedule(count: jax.Array) -> jax.Array:
        frac = 1.0 - (count // (minibatches * epochs)) / s.num_updates
        return config["LR"] * frac if config["ANNEAL_LR"] else config["LR"]

    # --------------------------------------------------------------- loss
    def loss_fn(params: Any, batch: tuple) -> tuple[jax.Array, dict]:
        """PPO's clipped surrogate, clipped value loss and entropy bonus on a batch of
        ``(time, actors)`` samples starting from the given hidden states."""
        traj, advantages, targets, actor_h0, critic_h0 = batch
        critic_in = traj.critic_in if world_critic else traj.obs
        *_, pi, value = run_networks(
            s, params, actor_h0, critic_h0, traj.obs, critic_in, traj.resets, traj.avail
        )
        log_prob = pi.log_prob(traj.action)

        value_clipped = traj.value + jnp.clip(value - traj.value, -clip_eps, clip_eps)
        value_loss = (
            0.5 * jnp.maximum(jnp.square(value - targets), jnp.square(value_clipped - targets)).mean()
        )

        ratio = jnp.exp(log_prob - traj.log_prob)
        advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        surrogate = jnp.minimum(ratio * advantages, jnp.clip(ratio, 1 - clip_eps, 1 + clip_eps) * advantages)
        actor_loss = -surrogate.mean()
        entropy = pi.entropy().mean()
        total = actor_loss + config["VF_COEF"] * value_loss - config["ENT_COEF"] * entropy
        stats = {
            "loss_total": total,
            "loss_actor": actor_loss,
            "loss_value": value_loss,
            "entropy": entropy,
            "approx_kl": jnp.mean((ratio - 1) - jnp.log(ratio)),
            "clip_fraction": jnp.mean(jnp.abs(ratio - 1) > clip_eps),
        }
        return total, stats

    # ------------------------------------------------------------- update
    def update_epoch(carry: tuple, _: None) -> tuple[tuple, dict]:
        train_state, traj, advantages, targets, actor_h0, critic_h0, key = carry
        key, key_perm = jax.random.split(key)
        if recurrent:  # minibatches of whole sequences (actors), time kept in order
            perm = permutation(key_perm, num_actors)
            data = (traj, advantages, targets)
            data = jax.tree.map(lambda x: jnp.take(x, perm, axis=1), data)
            data = jax.tree.map(
                lambda x: jnp.swapaxes(x.reshape((x.shape[0], minibatches, mb_size, *x.shape[2:])), 0, 1),
                data,
            )
            hiddens = jax.tree.map(
                lambda h: jnp.take(h, perm, axis=0).reshape(minibatches, -1, h.shape[-1]),
                (actor_h0, critic_h0),
            )
        else:  # minibatches of shuffled single steps (time axis of length 1)
            perm = permutation(key_perm, num_steps * num_actors)
            data = (traj, advantages, targets)
            data = jax.tree.map(
                lambda x: jnp.take(x.reshape((num_steps * num_actors, *x.shape[2:])), perm, axis=0), data
            )
            data = jax.tree.map(lambda x: x.reshape((minibatches, 1, mb_size, *x.shape[1:])), data)
            hiddens = jax.tree.map(
                lambda h: jnp.zeros((minibatches, num_steps * num_actors // minibatches, h.shape[-1])),
                (actor_h0, critic_h0),
            )

        def update_minibatch(train_state: TrainState, minibatch: tuple) -> tuple[TrainState, dict]:
            grads, stats = jax.grad(loss_fn, has_aux=True)(train_state.params, minibatch)
            return train_state.apply_gradients(grads=grads), stats

        minibatch_data = (*data, *hiddens)
        train_state, stats = jax.lax.scan(update_minibatch, train_state, minibatch_data)
        return (train_state, traj, advantages, targets, actor_h0, critic_h0, key), stats

    def update_step(runner: RunnerState, index: jax.Array) -> tuple[RunnerState, dict]:
        del index  # the runner counts its updates
        actor_h0, critic_h0 = runner.actor_hidden, runner.critic_hidden
        runner, traj, episodes, last_value = rollout.collect(runner)
        advantages, targets = gae(traj.reward, traj.value, traj.done, last_value, gamma, config["GAE_LAMBDA"])

        key, key_update = jax.random.split(runner.key)
        carry = (runner.train_state, traj, advantages, targets, actor_h0, critic_h0, key_update)
        carry, stats = jax.lax.scan(update_epoch, carry, None, epochs)
        update = runner.update + 1
        metrics = episode_metrics(*episodes) | jax.tree.map(jnp.mean, stats)
        metrics["timestep"] = update * num_steps * num_envs
        runs.report_progress(progress, runner.update, metrics, metric_names)
        return runner._replace(train_state=carry[0], key=key, update=update), metrics

    def init(rng: jax.Array) -> RunnerState:
        tx = optax.chain(optax.clip_by_global_norm(config["MAX_GRAD_NORM"]), optax.adam(schedule, eps=1e-5))
        return rollout.init(rng, tx)

    return Learner(init, update_step, s.num_updates, lambda runner: runner.train_state.params)


def make_train(config: dict, progress: Any = None) -> Any:
    """Build ``train(rng) -> {"params", "metrics"}`` for ``config``: pure and jittable,
    so ``jax.jit(jax.vmap(train))(keys)`` trains one agent population per key (the whole
    run under one ``jit``)."""
    return make_learner(config, progress).train


# ------------------------------------------------------------------------- main


def run(config: dict, run_dir: Path | None = None, resume: bool = False) -> dict:
    """Train ``config`` for every seed (printing progress) and, if ``run_dir`` is given,
    write the run folder there as it goes (continuing it with ``resume``). Returns the
    training output (params and metrics ``(num_seeds, num_updates, ...)``)."""
    return actor_critic.train_and_save(make_learner, config, run_dir, resume)


def main() -> None:
    runs.hydra_main("config/ppo", run)


if __name__ == "__main__":
    main()
