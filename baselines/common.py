"""What every training script shares besides its algorithm: the config, seeds over
devices, the :class:`Learner` shape a training loop is written in (so it can run whole
under one ``jit`` or in checkpointed chunks), the building blocks of its networks (an
orthogonal initializer, a resettable scanned GRU) and episode metrics.

The run folder, checkpoints, progress and the command line are in
:mod:`baselines.runs`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
from jax.custom_batching import custom_vmap
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

# ---------------------------------------------------------------------- config

CONFIG_DIR = Path(__file__).resolve().parent / "config"


# Config folders shared by several families: PPO and A2C train on the same environment
# configs (``actor_critic/env/``). Each env config takes its hyperparameters from
# ``/hparams/<family>``, which every algorithm's own folder provides, so one ``env=...``
# gives each algorithm its own settings for that environment.
SHARED_CONFIG = {"ppo": "actor_critic", "a2c": "actor_critic"}


def config_dirs(family: str) -> list[Path]:
    """The folders hydra composes ``family``'s config from, its own first."""
    shared = SHARED_CONFIG.get(family)
    return [CONFIG_DIR / family] + ([CONFIG_DIR / shared] if shared else [])


def searchpath_overrides(family: str) -> list[str]:
    """The hydra override adding ``family``'s shared config folders to its search path."""
    extra = config_dirs(family)[1:]
    return [f"hydra.searchpath=[{','.join(f'file://{d}' for d in extra)}]"] if extra else []


def compose_config(family: str, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """The resolved hydra config of ``baselines/config/<family>`` with ``overrides``
    (``["alg=mappo_ff", "NUM_SEEDS=4"]``), as the training script would see it."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    register_resolvers()
    with initialize_config_dir(config_dir=str(CONFIG_DIR / family), version_base=None):
        cfg = compose("config", overrides=searchpath_overrides(family) + list(overrides))
    return cast(dict, OmegaConf.to_container(cfg, resolve=True))


def env_label(env_name: str, env_kwargs: Any = None) -> str:
    """The environment as a run is named: its id, with the scenario, layout, map or task
    it was made with when there is one (``HeuristicEnemySMAX-2s3z``, ``overcooked-cramped_room``)."""
    kwargs = dict(env_kwargs or {})
    for key in ("scenario", "layout", "map_name", "map", "task"):
        value = kwargs.get(key)
        if isinstance(value, str) and value not in env_name:
            return f"{env_name}-{value}"
    return env_name


def register_resolvers() -> None:
    """OmegaConf resolvers the configs use: ``${env_label:${ENV_NAME},${ENV_KWARGS}}``
    (:func:`env_label`) and ``${first_set:${resume},<default>}`` (the first argument
    unless it is null)."""
    from omegaconf import OmegaConf

    if not OmegaConf.has_resolver("env_label"):
        OmegaConf.register_new_resolver(
            "env_label", lambda name, kwargs=None: env_label(str(name), kwargs), use_cache=False
        )
    if not OmegaConf.has_resolver("first_set"):
        OmegaConf.register_new_resolver(
            "first_set", lambda value, default: default if value is None else value, use_cache=False
        )


# ----------------------------------------------------------------------- seeds


def seed_keys(config: dict) -> jax.Array:
    """One PRNG key per seed: ``split(PRNGKey(SEED), NUM_SEEDS)``, ``(NUM_SEEDS, 2)``."""
    return jax.random.split(jax.random.PRNGKey(int(config["SEED"])), int(config["NUM_SEEDS"]))


def shard_over_devices(keys: jax.Array, config: dict) -> jax.Array:
    """Place the seed axis of ``keys`` across all devices (of all hosts after
    ``jax.distributed.initialize``), or leave it on one device.

    ``SHARD_SEEDS`` is ``auto`` (shard when there is more than one device), ``true`` or
    ``false``. Sharding needs ``NUM_SEEDS`` to be a multiple of the device count.
    """
    mode = str(config.get("SHARD_SEEDS", "auto")).lower()
    num_devices = jax.device_count()
    if mode == "false" or (mode == "auto" and num_devices == 1):
        return keys
    num_seeds = keys.shape[0]
    if num_seeds % num_devices:
        raise ValueError(
            f"NUM_SEEDS={num_seeds} cannot be split evenly over {num_devices} devices; "
            f"use a multiple of {num_devices} or SHARD_SEEDS=false"
        )
    # Auto axis: XLA partitions the vmapped training over the seed axis (GSPMD), with no
    # explicit-sharding types to thread through the code.
    mesh = jax.make_mesh((num_devices,), ("seed",), axis_types=(AxisType.Auto,))
    sharding = NamedSharding(mesh, P("seed"))
    host_keys = np.asarray(keys)
    return jax.make_array_from_callback(host_keys.shape, sharding, lambda index: host_keys[index])


def init_distributed(config: dict) -> None:
    """Join a multi-host run (``jax.distributed.initialize``) when ``distributed.enabled``;
    unset addresses and ids are auto-detected by JAX (e.g. under SLURM)."""
    settings = config.get("distributed") or {}
    if not settings.get("enabled"):
        return
    jax.distributed.initialize(
        coordinator_address=settings.get("coordinator_address"),
        num_processes=settings.get("num_processes"),
        process_id=settings.get("process_id"),
    )


def gather_to_host(tree: Any) -> Any:
    """Bring a (possibly multi-host, sharded) result to NumPy on every process."""
    if jax.process_count() > 1:
        from jax.experimental import multihost_utils

        tree = multihost_utils.process_allgather(tree, tiled=True)
    return jax.device_get(tree)


def train_seeds(make_train: Callable[[dict], Callable], config: dict) -> dict:
    """Build ``train = make_train(config)`` and run it for every seed in one compiled call
    (``jit(vmap(train))``, the seed axis sharded over devices when there are several)."""
    keys = shard_over_devices(seed_keys(config), config)
    return jax.jit(jax.vmap(make_train(config)))(keys)


def env_state_of(state: Any) -> Any:
    """The environment's own state, given it or a ``LogWrapper``'s state around it (so a
    policy can act on either)."""
    from jaxmarl.wrappers import LogEnvState

    while isinstance(state, LogEnvState):
        state = state.env_state
    return state


# --------------------------------------------------------------------- learner


@dataclass(frozen=True)
class Learner:
    """A training loop as pieces: what every script's ``make_learner(config)`` returns.

    Attributes:
        init: ``key -> runner``, the whole training state of one seed (parameters,
            optimizer state, environments, replay buffer, PRNG key, update count).
        update: ``(runner, index) -> (runner, metrics)``, one update; ``index`` (the
            update's number, ``int32 ()``) is the same for every seed, so branches on it
            stay branches under ``vmap``.
        num_updates: updates in the whole run.
        params: ``runner -> parameters``.

    ``train(key)`` runs the whole loop under one ``jit`` (``make_train``'s contract);
    ``run_updates`` runs a slice of it, which is how the command line checkpoints
    between slices (:mod:`baselines.runs`).
    """

    init: Callable[[jax.Array], Any]
    update: Callable[[Any, jax.Array], tuple[Any, dict]]
    num_updates: int
    params: Callable[[Any], Any]

    def train(self, rng: jax.Array) -> dict:
        """Every update from a fresh start: ``{"params", "metrics"}``, metrics ``(num_updates, ...)``."""
        runner, metrics = jax.lax.scan(self.update, self.init(rng), jnp.arange(self.num_updates))
        return {"params": self.params(runner), "metrics": metrics}

    def run_updates(self, runner: Any, indices: jax.Array, active: jax.Array) -> tuple[Any, dict]:
        """The updates ``indices`` ``(chunk,)`` from ``runner``, skipping those where
        ``active`` is false (the tail of the last slice; their metrics are zeros). Both are
        the same for every seed (``vmap`` with ``in_axes=None``), so skipping is a real
        branch, and one compiled slice serves every slice of the run."""

        def body(runner: Any, x: tuple[jax.Array, jax.Array]) -> tuple[Any, dict]:
            index, on = x

            def skip(runner: Any, index: jax.Array) -> tuple[Any, dict]:
                shapes = jax.eval_shape(self.update, runner, index)[1]
                return runner, jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)

            return jax.lax.cond(on, self.update, skip, runner, index)

        return jax.lax.scan(body, runner, (indices, active))


# ---------------------------------------------------------------- rare branches


def when_any(pred: jax.Array, fn: Callable[..., Any], otherwise: Callable[..., Any], *operands: Any) -> Any:
    """``fn(*operands)`` if ``pred`` else ``otherwise(*operands)``, as a branch that
    stays a branch under ``vmap``: for work that is needed rarely.

    For one element this is ``lax.cond``. Under ``vmap`` (seeds vmapped in one ``jit``),
    ``lax.cond`` with a batched predicate becomes a select that runs both branches for
    every element; here the batch runs ``fn`` for **every** element when any element's
    ``pred`` holds, and ``otherwise`` when none does. So an element whose ``pred`` is
    false may get ``fn``'s result: callers use the result only where ``pred`` holds
    (``jnp.where(pred, result, ...)``), and both functions must be safe to evaluate
    anywhere. ``fn`` and ``otherwise`` must return the same structure, shapes and dtypes.
    Not differentiable (``custom_vmap``): use it outside gradients, as in rollouts.
    """

    @jax.custom_batching.custom_vmap
    def branch(pred: jax.Array, *operands: Any) -> Any:
        return jax.lax.cond(pred, fn, otherwise, *operands)

    @branch.def_vmap
    def branch_batched(axis_size: int, in_batched: list, pred: jax.Array, *operands: Any) -> tuple[Any, Any]:
        axes = tuple(jax.tree.map(lambda b: 0 if b else None, batched) for batched in in_batched[1:])
        run, skip = (
            jax.vmap(fn, in_axes=axes, axis_size=axis_size),
            jax.vmap(otherwise, in_axes=axes, axis_size=axis_size),
        )
        out = when_any(jnp.any(pred), run, skip, *operands)  # itself a branch under an outer vmap
        return out, jax.tree.map(lambda _: True, out)

    return branch(pred, *operands)


# ------------------------------------------------------------------ minibatches


def permutation(key: jax.Array, n: int) -> jax.Array:
    """A uniformly random permutation of ``0 .. n-1`` (``int32 (n,)``), for shuffling
    samples into minibatches.

    ``jax.random.permutation`` sorts random keys with the indices as a payload, and XLA's
    CPU backend sorts key-value pairs about ten times slower than a single array of
    integers: for PPO's 6,144 samples that one shuffle took 4.4 ms per epoch, a fifth of
    a whole update. Here each index rides in the low ``ceil(log2 n)`` bits of its own random
    key, so every round sorts one ``uint32`` array. The indices break ties in the first
    round and each round's order breaks them in the next, so the result is the order of
    ``(key_r, ..., key_1)`` compared lexicographically: uniform unless two samples draw
    the same key in every round. The rounds are chosen as ``jax.random.permutation``
    chooses them (at least ``3 log2 n`` random bits in all), which makes that
    vanishingly rare. Sizes too large to leave 8 random bits per round fall back to
    ``jax.random.permutation``.
    """
    index_bits = max(1, (n - 1).bit_length())
    random_bits = 32 - index_bits
    if random_bits < 8:
        return jax.random.permutation(key, n)
    rounds = max(1, math.ceil(3 * math.log2(n) / random_bits))
    mask = jnp.uint32((1 << index_bits) - 1)
    order = jnp.arange(n, dtype=jnp.uint32)
    for i, round_key in enumerate(jax.random.split(key, rounds)):
        bits = jax.random.bits(round_key, (n,), jnp.uint32) >> index_bits
        positions = jnp.sort((bits << index_bits) | jnp.arange(n, dtype=jnp.uint32)) & mask
        order = positions if i == 0 else order[positions]
    return order.astype(jnp.int32)


# -------------------------------------------------------------------- networks


def orthogonal(scale: float = 1.0) -> Any:
    """Orthogonal initializer (Saxe et al., 2014) built from plain XLA operations.

    It draws the same distribution as ``flax.linen.initializers.orthogonal`` (the Q of a
    Gaussian matrix's QR decomposition, with R's diagonal made positive), but computes Q
    by Gram-Schmidt instead of LAPACK: on CPU, jaxlib's batched LAPACK QR, called from
    every thread of the intra-op pool at once (as a vmapped, multi-seed initialisation
    does on a 2-core machine), can deadlock.
    """

    def init(key: jax.Array, shape: tuple, dtype: Any = jnp.float32) -> jax.Array:
        n_cols = shape[-1]
        n_rows = int(np.prod(shape)) // n_cols
        tall = (max(n_rows, n_cols), min(n_rows, n_cols))
        a = jax.random.normal(key, tall, jnp.float32)

        def column(j: jax.Array, q: jax.Array) -> jax.Array:
            v = a[:, j]
            for _ in range(2):  # Gram-Schmidt twice: orthogonal to working precision
                v = v - q @ (q.T @ v)
            return q.at[:, j].set(v / jnp.linalg.norm(v))

        q = jax.lax.fori_loop(0, tall[1], column, jnp.zeros(tall, jnp.float32))
        if n_rows < n_cols:
            q = q.T
        return (scale * q).reshape(shape).astype(dtype)

    return init


@jax.custom_vjp
def _matmul(x: jax.Array, kernel: jax.Array) -> jax.Array:
    """``x @ kernel`` (see :class:`Dense`)."""
    return x @ kernel


def _matmul_fwd(x: jax.Array, kernel: jax.Array) -> tuple[jax.Array, tuple]:
    return x @ kernel, (x, kernel)


def _matmul_bwd(saved: tuple, d_out: jax.Array) -> tuple[jax.Array, jax.Array]:
    x, kernel = saved
    return d_out @ kernel.T, _kernel_grad(x.reshape(-1, x.shape[-1]), d_out.reshape(-1, d_out.shape[-1]))


@custom_vmap
def _kernel_grad(x: jax.Array, d_out: jax.Array) -> jax.Array:
    """``x.T @ d_out``, the gradient of a dense layer's kernel: ``(rows, in), (rows, out) -> (in, out)``."""
    return x.T @ d_out


@_kernel_grad.def_vmap
def _kernel_grad_vmap(axis_size: int, in_batched: list, x: jax.Array, d_out: jax.Array) -> tuple:
    # Under a seeds' vmap XLA's CPU backend makes the product a batched one contracting
    # both operands' sample axis, outside its fast path (0.12 ms per seed for 1,536 rows
    # of 64 features, and a transposed copy of d_out first). With the inputs transposed
    # into a copy of their own (the barrier keeps XLA from folding the transpose back
    # into the product) it is a plain batched row-major product.
    # (With one seed XLA drops the batch axis and the plain product is the faster one.)
    x, d_out = (
        a if batched else jnp.broadcast_to(a, (axis_size, *a.shape))
        for a, batched in zip((x, d_out), in_batched, strict=True)
    )
    if axis_size == 1:
        return jnp.einsum("nri,nro->nio", x, d_out), True
    x_t = jax.lax.optimization_barrier(jnp.swapaxes(x, 1, 2))
    return x_t @ d_out, True


_matmul.defvjp(_matmul_fwd, _matmul_bwd)


class Dense(nn.Dense):
    """``nn.Dense`` (the same parameters, names, initialisation and values) whose kernel
    gradient takes a faster route under a seeds' ``vmap``: there XLA's CPU backend makes
    ``x.T @ d_out`` a batched product contracting both operands' sample axis, outside its
    fast path; from an explicitly transposed copy of the inputs it is a plain batched
    product (IPPO-FF with four seeds at the original JaxMARL configuration: 68 -> 50 ms
    an update). Alone or with one seed, the product is ``nn.Dense``'s."""

    @nn.compact
    def __call__(self, inputs: jax.Array) -> jax.Array:
        shape = (jnp.shape(inputs)[-1], self.features)
        kernel = self.param("kernel", self.kernel_init, shape, self.param_dtype)
        bias = self.param("bias", self.bias_init, shape[1:], self.param_dtype) if self.use_bias else None
        inputs, kernel, bias = nn.dtypes.promote_dtype(inputs, kernel, bias, dtype=self.dtype)
        y = _matmul(inputs, kernel)
        return y if bias is None else y + bias


class _Kernel(nn.Module):
    """The parameters of one of a GRU cell's dense maps, named as ``nn.Dense`` names them
    (``kernel``, ``bias``), without applying it."""

    shape: tuple[int, int]
    use_bias: bool
    kernel_init: Callable

    @nn.compact
    def __call__(self) -> tuple[jax.Array, jax.Array | None]:
        kernel = self.param("kernel", self.kernel_init, self.shape, jnp.float32)
        if not self.use_bias:
            return kernel, None
        return kernel, self.param("bias", nn.initializers.zeros_init(), self.shape[1:], jnp.float32)


def _gru_steps(
    xi: jax.Array, resets: jax.Array, h0: jax.Array, wh: jax.Array, bhn: jax.Array
) -> tuple[jax.Array, tuple]:
    """The recurrence of a GRU whose input maps are already applied: ``xi``
    ``(time, batch, 3 * hidden)`` holds the reset, update and candidate gates' input
    terms, ``wh`` ``(hidden, 3 * hidden)`` their recurrent kernels side by side. Returns
    the last state and, per step, the new state and what the backward pass needs."""
    xr, xz, xn = jnp.split(xi, 3, axis=-1)
    whr, whz, whn = jnp.split(wh, 3, axis=-1)

    def step(h: jax.Array, inputs: tuple) -> tuple[jax.Array, tuple]:
        xr, xz, xn, reset = inputs
        h = jnp.where(reset[:, None], 0.0, h)
        r = jax.nn.sigmoid(xr + h @ whr)
        z = jax.nn.sigmoid(xz + h @ whz)
        hn = h @ whn + bhn
        n = jnp.tanh(xn + r * hn)
        new = (1.0 - z) * n + z * h
        return new, (new, h, r, z, n, hn)

    return jax.lax.scan(step, h0, (xr, xz, xn, resets))


@jax.custom_vjp
def _gru_recurrence(
    xi: jax.Array, resets: jax.Array, h0: jax.Array, wh: jax.Array, bhn: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """``(last state, states (time, batch, hidden))`` of :func:`_gru_steps`. Its backward
    pass runs the recurrence in reverse for the state's gradient only and forms the
    recurrent kernels' gradient after the loop, as one matrix product over all steps,
    instead of accumulating products step by step inside it: the same gradient, with one
    matrix product per step in the loop where Flax's scanned cell's backward pass has six."""
    last, (states, *_) = _gru_steps(xi, resets, h0, wh, bhn)
    return last, states


def _gru_recurrence_fwd(
    xi: jax.Array, resets: jax.Array, h0: jax.Array, wh: jax.Array, bhn: jax.Array
) -> tuple:
    last, (states, h, r, z, n, hn) = _gru_steps(xi, resets, h0, wh, bhn)
    return (last, states), (resets, wh, h, r, z, n, hn)


def _gru_recurrence_bwd(saved: tuple, cotangents: tuple) -> tuple:
    resets, wh, h, r, z, n, hn = saved
    d_last, d_states = cotangents
    wh_t = wh.T

    def step(d_next: jax.Array, inputs: tuple) -> tuple[jax.Array, tuple]:
        d_out, reset, h, r, z, n, hn = inputs
        d_new = d_out + d_next
        d_xn = d_new * (1.0 - z) * (1.0 - n * n)  # the candidate's pre-activation
        d_xr = d_xn * hn * r * (1.0 - r)
        d_xz = d_new * (h - n) * z * (1.0 - z)
        d_a = jnp.concatenate([d_xr, d_xz, d_xn * r], axis=-1)  # what h @ wh was added to
        d_h = d_new * z + d_a @ wh_t
        return jnp.where(reset[:, None], 0.0, d_h), (d_a, d_xn)

    d_h0, (d_a, d_xn) = jax.lax.scan(step, d_last, (d_states, resets, h, r, z, n, hn), reverse=True)
    d_wh = _kernel_grad(h.reshape(-1, h.shape[-1]), d_a.reshape(-1, d_a.shape[-1]))
    d_xi = jnp.concatenate([d_a[..., : 2 * wh.shape[0]], d_xn], axis=-1)
    d_resets = np.zeros(resets.shape, jax.dtypes.float0)
    return d_xi, d_resets, d_h0, d_wh, d_a[..., 2 * wh.shape[0] :].sum((0, 1))


_gru_recurrence.defvjp(_gru_recurrence_fwd, _gru_recurrence_bwd)


class ScannedGRU(nn.Module):
    """A GRU scanned over time whose state is zeroed where ``resets`` is true.

    Inputs are time-major: ``carry`` ``(batch, hidden)``, ``x`` ``(time, batch, features)``
    and ``resets`` ``(time, batch)``; ``resets[t]`` zeroes the state *before* ``x[t]`` is
    read (a new episode starts at step ``t``). Returns the last state and the state after
    every step, ``(time, batch, hidden)``.

    The cell is Flax's ``nn.GRUCell`` (same equations, parameters and initialisation,
    under ``GRUCell_0``), computed the way cuDNN computes a GRU layer: the three gates'
    input maps of every step as one matrix product before the recurrence, and the
    recurrent kernels' gradient as one product after it (:func:`_gru_recurrence`).
    """

    hidden: int

    @nn.compact
    def __call__(self, carry: jax.Array, inputs: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        x, resets = inputs
        cell = _GRUCellParams(x.shape[-1], self.hidden, name="GRUCell_0")()
        wi = jnp.concatenate([cell[f"i{g}"][0] for g in "rzn"], axis=1)
        bi = jnp.concatenate([cell[f"i{g}"][1] for g in "rzn"])
        wh = jnp.concatenate([cell[f"h{g}"][0] for g in "rzn"], axis=1)
        return _gru_recurrence(_matmul(x, wi) + bi, resets, carry, wh, cell["hn"][1])


class _GRUCellParams(nn.Module):
    """``nn.GRUCell``'s parameters (input maps ``ir``, ``iz``, ``in`` with biases;
    recurrent maps ``hr``, ``hz`` without and ``hn`` with one), created in its order with
    its initialisers (LeCun normal for the input kernels, orthogonal for the recurrent
    ones, zero biases), so they are drawn exactly as the cell draws them."""

    features: int
    hidden: int

    @nn.compact
    def __call__(self) -> dict[str, tuple]:
        lecun, ortho = nn.initializers.lecun_normal(), orthogonal()
        cell = {}
        for gate in ("r", "z", "n"):
            cell[f"i{gate}"] = _Kernel((self.features, self.hidden), True, lecun, name=f"i{gate}")()
            cell[f"h{gate}"] = _Kernel((self.hidden, self.hidden), gate == "n", ortho, name=f"h{gate}")()
        return cell


# ------------------------------------------------------------- episode metrics


def episode_metrics(
    returned: jax.Array,
    returns: jax.Array,
    lengths: jax.Array,
    env_metrics: dict[str, jax.Array] | None = None,
) -> dict[str, jax.Array]:
    """Returns, lengths and the environment's episode metrics of the episodes that
    finished during a rollout (NaN if none did).

    Args:
        returned, returns, lengths: ``(..., num_agents)`` from ``LogWrapper``'s info
            (``returned_episode``, ``returned_episode_returns``, ``returned_episode_lengths``),
            e.g. ``(num_steps, num_envs, num_agents)``; only entries where ``returned`` is
            true count.
        env_metrics: ``info["returned_episode_metrics"]``, name -> ``(...)`` (e.g.
            SMAX's ``win_rate``, Hanabi's ``score``).

    Returns:
        ``return_mean`` (mean over agents), ``return`` ``(num_agents,)``,
        ``episode_length``, ``episodes`` (how many finished) and the mean of each
        environment metric over the finished episodes, under its own name.
    """
    axes = tuple(range(returned.ndim - 1))
    count = returned.sum(axis=axes)  # (num_agents,)
    per_agent = jnp.where(returned, returns, 0.0).sum(axis=axes) / count
    length = jnp.where(returned, lengths, 0).sum() / returned.sum()
    out = {
        "return_mean": per_agent.mean(),
        "return": per_agent,
        "episode_length": length,
        "episodes": count[0],
    }
    finished = returned[..., 0]
    for name, values in (env_metrics or {}).items():
        out[name] = jnp.where(finished, values, 0.0).sum() / finished.sum()
    return out
