"""A2C (IA2C and MAA2C) for every registered jaxmarl environment, many seeds in one call.

    python baselines/a2c.py                                   # IA2C-FF on MPE_simple_spread_v3
    python baselines/a2c.py env=mpe_simple_spread NUM_SEEDS=8
    python baselines/a2c.py alg=maa2c_rnn env=smax_2s3z

Synchronous advantage actor-critic (Mnih et al., 2016, in its synchronous form), as
Jumanji's A2C agent computes it (Bonnet et al., 2024, Appendix C): ``NUM_ENVS``
environments step ``NUM_STEPS`` times with the current policy; the advantages are
lambda-returns bootstrapped from the critic's value after the last step, minus the values
(``GAE_LAMBDA``, Jumanji's ``bootstrapping_factor``: 1 gives the classic n-step returns);
then one gradient step on the whole batch minimises

    PG_COEF * -mean(A * log pi(a|o)) + VF_COEF * mean(A^2) - ENT_COEF * mean(H(pi))

where the policy term takes ``A`` as a constant and the critic term differentiates the
value inside ``A`` (Jumanji's ``l_pg``, ``l_td`` and ``l_en``; its critic loss has no
factor 1/2). ``NORMALIZE_ADVANTAGE`` standardises the policy term's advantages over the
batch (off in Jumanji's configs).

One set of parameters is shared by all agents; IA2C and MAA2C differ only in what the
critic sees (``CRITIC: local | world``, as for IPPO and MAPPO), and networks are
feed-forward or GRU (``NETWORK: ff | rnn``). Everything A2C shares with PPO (networks,
padding and masking of agents, the rollout, bootstrapping at time limits, acting with
trained parameters) is in :mod:`baselines.actor_critic`; this file is what is A2C's own:
its loss and its update, ``make_learner`` / ``make_train`` and the hydra ``main``.
Configuration: ``baselines/config/a2c`` (``alg/`` and ``hparams/``), with the
environment configs PPO uses (``baselines/config/actor_critic/env``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import optax

from baselines import actor_critic, runs
from baselines.actor_critic import RunnerState, gae, make_rollout, run_networks, setup
from baselines.common import Learner, episode_metrics

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
    num_steps, gamma = int(config["NUM_STEPS"]), float(config["GAMMA"])
    world_critic = config["CRITIC"] == "world"
    normalize = bool(config["NORMALIZE_ADVANTAGE"])
    pg_coef, vf_coef, ent_coef = float(config["PG_COEF"]), float(config["VF_COEF"]), float(config["ENT_COEF"])

    def schedule(count: jax.Array) -> jax.Array:
        return config["LR"] * (1.0 - count / s.num_updates) if config["ANNEAL_LR"] else config["LR"]

    # --------------------------------------------------------------- loss
    def loss_fn(params: Any, batch: tuple) -> tuple[jax.Array, dict]:
        """The A2C loss on a rollout ``(time, actors)``, the networks run from the hidden
        states the rollout started with (so a GRU sees every step in order)."""
        traj, advantages, targets, actor_h0, critic_h0 = batch
        critic_in = traj.critic_in if world_critic else traj.obs
        *_, pi, value = run_networks(
            s, params, actor_h0, critic_h0, traj.obs, critic_in, traj.resets, traj.avail
        )

        # The same parameters acted, so ``targets - value`` equals ``advantages`` here; its
        # square trains the critic towards the lambda-returns.
        value_loss = jnp.square(targets - value).mean()
        if normalize:
            advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)
        actor_loss = -(advantages * pi.log_prob(traj.action)).mean()
        entropy = pi.entropy().mean()
        total = pg_coef * actor_loss + vf_coef * value_loss - ent_coef * entropy
        stats = {"loss_total": total, "loss_actor": actor_loss, "loss_value": value_loss, "entropy": entropy}
        return total, stats

    # ------------------------------------------------------------- update
    def update_step(runner: RunnerState, index: jax.Array) -> tuple[RunnerState, dict]:
        del index  # the runner counts its updates
        actor_h0, critic_h0 = runner.actor_hidden, runner.critic_hidden
        runner, traj, episodes, last_value = rollout.collect(runner)
        advantages, targets = gae(traj.reward, traj.value, traj.done, last_value, gamma, config["GAE_LAMBDA"])
        batch = (traj, advantages, targets, actor_h0, critic_h0)
        grads, stats = jax.grad(loss_fn, has_aux=True)(runner.train_state.params, batch)
        stats["grad_norm"] = optax.tree.norm(grads)
        update = runner.update + 1
        metrics = episode_metrics(*episodes) | stats
        metrics["timestep"] = update * num_steps * s.num_envs
        runs.report_progress(progress, runner.update, metrics, metric_names)
        train_state = runner.train_state.apply_gradients(grads=grads)
        return runner._replace(train_state=train_state, update=update), metrics

    def init(rng: jax.Array) -> RunnerState:
        max_norm = config.get("MAX_GRAD_NORM")
        clip = [optax.clip_by_global_norm(float(max_norm))] if max_norm else []
        tx = optax.chain(*clip, optax.adam(schedule, eps=1e-5))
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
    runs.hydra_main("config/a2c", run)


if __name__ == "__main__":
    main()
