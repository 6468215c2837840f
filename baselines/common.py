"""What every training script shares besides its algorithm: seeds over devices, progress,
the run folder (config, metrics CSV, learning curve, parameters), wandb and the command
line, plus the building blocks of its networks (an orthogonal initializer, a resettable
scanned GRU) and episode metrics.

A run folder holds:

- ``config.yaml``: the resolved configuration;
- ``metrics.csv``: one row per update and seed (``update``, ``timestep``, ``seed``,
  ``return_mean``, per-agent returns, losses ...);
- ``learning_curve.png``: mean return over seeds against timesteps, with the spread
  across seeds;
- ``params.msgpack``: the trained parameters of every seed (leading axis = seed),
  loadable with :func:`load_run`.
"""

from __future__ import annotations

import csv
import functools
import math
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import flax.linen as nn
import jax
import jax.numpy as jnp
import numpy as np
import yaml
from flax import serialization
from jax.sharding import AxisType, NamedSharding
from jax.sharding import PartitionSpec as P

# ---------------------------------------------------------------------- config

CONFIG_DIR = Path(__file__).resolve().parent / "config"


def compose_config(family: str, overrides: list[str] | tuple[str, ...] = ()) -> dict:
    """The resolved hydra config of ``baselines/config/<family>`` with ``overrides``
    (``["alg=mappo_ff", "NUM_SEEDS=4"]``), as the training script would see it."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(config_dir=str(CONFIG_DIR / family), version_base=None):
        cfg = compose("config", overrides=list(overrides))
    return cast(dict, OmegaConf.to_container(cfg, resolve=True))


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


class ScannedGRU(nn.Module):
    """A GRU scanned over time whose state is zeroed where ``resets`` is true.

    Inputs are time-major: ``carry`` ``(batch, hidden)``, ``x`` ``(time, batch, features)``
    and ``resets`` ``(time, batch)``; ``resets[t]`` zeroes the state *before* ``x[t]`` is
    read (a new episode starts at step ``t``). Returns the last state and the state after
    every step, ``(time, batch, hidden)``.
    """

    hidden: int

    @functools.partial(
        nn.scan, variable_broadcast="params", in_axes=0, out_axes=0, split_rngs={"params": False}
    )
    @nn.compact
    def __call__(self, carry: jax.Array, inputs: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        x, resets = inputs
        carry = jnp.where(resets[:, None], jnp.zeros_like(carry), carry)
        carry, y = nn.GRUCell(self.hidden, recurrent_kernel_init=orthogonal())(carry, x)
        return carry, y


# ------------------------------------------------------------- episode metrics


def episode_metrics(returned: jax.Array, returns: jax.Array, lengths: jax.Array) -> dict[str, jax.Array]:
    """Returns and lengths of the episodes that finished during a rollout (NaN if none).

    Args:
        returned, returns, lengths: ``(..., num_agents)`` from ``LogWrapper``'s info
            (``returned_episode``, ``returned_episode_returns``, ``returned_episode_lengths``),
            e.g. ``(num_steps, num_envs, num_agents)``; only entries where ``returned`` is
            true count.

    Returns:
        ``return_mean`` (mean over agents), ``return`` ``(num_agents,)``,
        ``episode_length`` and ``episodes`` (how many finished).
    """
    axes = tuple(range(returned.ndim - 1))
    count = returned.sum(axis=axes)  # (num_agents,)
    per_agent = jnp.where(returned, returns, 0.0).sum(axis=axes) / count
    length = jnp.where(returned, lengths, 0).sum() / returned.sum()
    return {
        "return_mean": per_agent.mean(),
        "return": per_agent,
        "episode_length": length,
        "episodes": count[0],
    }


# -------------------------------------------------------------------- progress


class Progress:
    """Throttled progress lines, fed from inside the jitted loop by ``jax.debug.callback``.

    Each call reports one seed's update; a line is printed at most every ``interval``
    seconds (and after the last update) with the timesteps done, the mean return over
    the seeds reported for the latest update, steps per second and the time left.
    """

    def __init__(self, total_updates: int, steps_per_update: int, num_seeds: int, interval: float = 2.0):
        self.total_updates = total_updates
        self.steps_per_update = steps_per_update
        self.num_seeds = num_seeds
        self.interval = interval
        self.start = time.perf_counter()
        self.last_print = -math.inf
        self.latest: dict[int, list[float]] = {}
        self.first_update_time: float | None = None

    def __call__(self, update: Any, episode_return: Any) -> None:
        update = int(update)
        self.latest.setdefault(update, []).append(float(episode_return))
        now = time.perf_counter()
        if self.first_update_time is None:
            self.first_update_time = now  # compilation ends here
        done = update + 1 >= self.total_updates and len(self.latest[update]) == self.num_seeds
        if done or now - self.last_print >= self.interval:
            self.last_print = now
            print(self.line(update, now), flush=True)
        for old in [u for u in self.latest if u < update - 1]:
            del self.latest[old]

    def line(self, update: int, now: float) -> str:
        returns = [r for r in self.latest[update] if not math.isnan(r)]
        ret = f"{np.mean(returns):9.3f}" if returns else "      n/a"
        timesteps = (update + 1) * self.steps_per_update
        total = self.total_updates * self.steps_per_update
        assert self.first_update_time is not None
        elapsed = now - self.first_update_time
        if update and elapsed > 0:  # the first update's time includes compilation
            rate = update * self.steps_per_update * self.num_seeds / elapsed
            left = (self.total_updates - update - 1) * self.steps_per_update * self.num_seeds / rate
            speed = f"{rate:9,.0f} steps/s | left {time.strftime('%H:%M:%S', time.gmtime(left))}"
        else:
            speed = "        - steps/s | left --:--:--"
        return (
            f"update {update + 1:>5}/{self.total_updates} | timesteps {timesteps:>10,}/{total:,} "
            f"({100 * timesteps / total:3.0f}%) | return {ret} | {speed}"
        )


# ------------------------------------------------------------------ run folder


def metrics_rows(metrics: dict[str, np.ndarray], agents: list[str]) -> list[dict[str, Any]]:
    """Rows of the metrics CSV from arrays of shape ``(num_seeds, num_updates, ...)``.

    Per-agent arrays (last axis = agents) become ``<name>_<agent>`` columns."""
    num_seeds, num_updates = metrics["timestep"].shape[:2]
    first = [k for k in ("timestep", "return_mean", "return", "episode_length", "episodes") if k in metrics]
    names = first + sorted(k for k in metrics if k not in first)
    rows = []
    for seed in range(num_seeds):
        for update in range(num_updates):
            row: dict[str, Any] = {"update": update + 1, "seed": seed}
            for name in names:
                values = metrics[name]
                value = values[seed, update]
                if np.ndim(value) == 1 and len(value) == len(agents):
                    row.update({f"{name}_{agent}": float(v) for agent, v in zip(agents, value, strict=True)})
                else:
                    row[name] = value.item()
            rows.append(row)
    return rows


def write_csv(path: Path, rows: list[dict[str, Any]]) -> None:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def plot_learning_curve(path: Path, timesteps: np.ndarray, returns: np.ndarray, title: str) -> None:
    """Mean return over seeds against timesteps, shaded between the lowest and highest seed.

    Args:
        timesteps: ``(num_updates,)``.
        returns: ``(num_seeds, num_updates)``; NaN where no episode finished.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - matplotlib is in the baselines extra
        raise ImportError(
            "Plotting learning curves needs matplotlib: pip install 'jaxmarl[baselines]'"
        ) from err
    fig, ax = plt.subplots(figsize=(6, 4))
    with warnings.catch_warnings():  # updates before any episode finished are all-NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(returns, axis=0)
        low, high = np.nanmin(returns, axis=0), np.nanmax(returns, axis=0)
    ax.plot(timesteps, mean, label=f"mean of {returns.shape[0]} seed(s)")
    if returns.shape[0] > 1:
        ax.fill_between(timesteps, low, high, alpha=0.3, label="min-max over seeds")
    ax.set_xlabel("timesteps")
    ax.set_ylabel("episode return (mean over agents)")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def save_run(run_dir: Path, config: dict, metrics: dict[str, Any], params: Any, agents: list[str]) -> None:
    """Write config, metrics CSV, learning-curve PNG and parameters to ``run_dir``."""
    run_dir.mkdir(parents=True, exist_ok=True)
    metrics = {k: np.asarray(v) for k, v in jax.device_get(metrics).items()}
    (run_dir / "config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    write_csv(run_dir / "metrics.csv", metrics_rows(metrics, agents))
    title = f"{config['ALG_NAME']} on {config['ENV_NAME']}"
    plot_learning_curve(run_dir / "learning_curve.png", metrics["timestep"][0], metrics["return_mean"], title)
    (run_dir / "params.msgpack").write_bytes(serialization.msgpack_serialize(jax.device_get(params)))


def load_run(run_dir: str | Path) -> tuple[dict, Any]:
    """The config and parameters (a pytree of NumPy arrays, leading axis = seed) of a run."""
    run_dir = Path(run_dir)
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    params = serialization.msgpack_restore((run_dir / "params.msgpack").read_bytes())
    return config, jax.tree.map(jnp.asarray, params)


def log_wandb(config: dict, metrics: dict[str, Any], agents: list[str]) -> None:
    """Log the per-update metrics (mean over seeds, and each seed's return) to wandb,
    when ``wandb.mode`` is ``online`` or ``offline``."""
    mode = config.get("wandb", {}).get("mode", "disabled")
    if mode == "disabled":
        return
    import wandb

    settings = config["wandb"]
    run = wandb.init(
        project=settings.get("project"),
        entity=settings.get("entity"),
        tags=settings.get("tags") or None,
        mode=mode,
        config=config,
    )
    metrics = {k: np.asarray(v) for k, v in jax.device_get(metrics).items()}
    num_seeds, num_updates = metrics["timestep"].shape[:2]
    for update in range(num_updates):
        entry: dict[str, float] = {}
        for name, values in metrics.items():
            value = values[:, update]
            if value.ndim == 2 and value.shape[1] == len(agents):
                for i, agent in enumerate(agents):
                    entry[f"{name}/{agent}"] = float(np.nanmean(value[:, i]))
            elif value.ndim == 1:
                entry[name] = float(np.nanmean(value))
        for seed in range(num_seeds):
            entry[f"return_mean/seed_{seed}"] = float(metrics["return_mean"][seed, update])
        run.log(entry, step=int(metrics["timestep"][0, update]))
    run.finish()


# ------------------------------------------------------------ command line


def train_and_save(
    make_train: Callable[..., Callable],
    config: dict,
    run_dir: Path | None,
    num_updates: int,
    steps_per_update: int,
    agents: list[str],
) -> dict:
    """Train every seed of ``config`` with ``make_train(config, progress=...)``, printing
    progress, and, if ``run_dir`` is given, save the run there (process 0) and log it to
    wandb. Returns the training output (params and metrics) on the host."""
    progress = Progress(
        num_updates, steps_per_update, int(config["NUM_SEEDS"]), float(config.get("PROGRESS_INTERVAL_S", 2.0))
    )
    out = gather_to_host(train_seeds(functools.partial(make_train, progress=progress), config))
    if run_dir is not None and jax.process_index() == 0:
        save_run(run_dir, config, out["metrics"], out["params"], agents)
        log_wandb(config, out["metrics"], agents)
    return out


def hydra_main(config_path: str, run: Callable[[dict, Path], dict]) -> None:
    """The command line of a training script: compose ``baselines/<config_path>/config.yaml`` with
    the command-line overrides, join a multi-host run if asked, train with
    ``run(config, run_dir)`` into hydra's run folder and print a summary."""
    import logging

    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    config_dir = str(Path(__file__).resolve().parent / config_path)  # relative to baselines/

    @hydra.main(version_base=None, config_path=config_dir, config_name="config")
    def _main(cfg: Any) -> None:
        logging.getLogger("jax").setLevel(logging.WARNING)  # hydra's INFO logging is noisy for jax
        config = OmegaConf.to_container(cfg, resolve=True)
        assert isinstance(config, dict)
        init_distributed(config)
        run_dir = Path(HydraConfig.get().runtime.output_dir)
        print(f"{config['ALG_NAME']} on {config['ENV_NAME']}, {config['NUM_SEEDS']} seed(s) -> {run_dir}")
        out = run(config, run_dir)
        final = np.asarray(out["metrics"]["return_mean"])[:, -1]
        print(f"final return (mean over agents) per seed: {np.round(final, 3).tolist()}")
        print(f"saved config.yaml, metrics.csv, learning_curve.png and params.msgpack in {run_dir}")

    _main()
