"""Training runs users can trust: the run folder, checkpoints and resume, live logs,
progress lines and the command line every training script shares.

A run folder holds:

- ``config.yaml``: the resolved configuration, written before training starts;
- ``metrics.csv``: one row per update and seed (``update``, ``seed``, ``timestep``,
  ``return_mean``, per-agent returns, the environment's episode metrics such as
  ``win_rate``, losses ...), appended every ``LOG_INTERVAL`` updates while training runs;
- ``checkpoints/``: Orbax checkpoints of the whole training state (parameters, optimizer
  state, environments, replay buffer, PRNG keys, update count) and of the metrics so
  far, written at most every ``CHECKPOINT_INTERVAL_S`` seconds and when the run is
  stopped (SIGTERM, SIGINT); Orbax writes each into a temporary folder and renames it
  when complete, so a crash mid-save leaves the previous one intact. They are removed
  when the run finishes unless ``KEEP_CHECKPOINTS=true``;
- ``params.msgpack``: the trained parameters of every seed (leading axis = seed),
  loadable with :func:`load_run`; written before anything optional;
- ``learning_curve.png``: mean return (and each environment metric) over seeds against
  timesteps, with the spread across seeds (needs matplotlib: ``pip install -e
  ".[baselines]"``; without it the run is kept and the plot skipped with a warning);
- ``wandb/`` when ``wandb.mode`` is ``online`` or ``offline``, logged live.

``python baselines/ppo.py resume=<run folder>`` continues a stopped run from its last
checkpoint with its saved configuration, to the same parameters an uninterrupted run
reaches: the run is cut into slices of ``LOG_INTERVAL`` updates, each one call of the
same compiled function, whether or not it was interrupted between them.
"""

from __future__ import annotations

import csv
import math
import os
import secrets
import shutil
import signal
import sys
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import yaml
from flax import serialization

from baselines import common

CHECKPOINTS = "checkpoints"
PARAMS = "params.msgpack"


class RunError(ValueError):
    """A problem with the command line or the run folder, reported as one line."""


# -------------------------------------------------------------------- progress


class Progress:
    """Throttled progress lines, fed from inside the jitted loop by ``jax.debug.callback``.

    Every seed reports each update (one call per seed under ``vmap``, or one call with
    all seeds); a line is printed for an update once every seed has reported it, at most
    every ``interval`` seconds and always for the last update, with the timesteps done,
    the mean return over the seeds, the environment's episode metrics, steps per second
    and the time left.
    """

    def __init__(
        self,
        total_updates: int,
        steps_per_update: int,
        num_seeds: int,
        interval: float = 2.0,
        metric_names: tuple[str, ...] = (),
        first_update: int = 0,
    ):
        self.total_updates = total_updates
        self.steps_per_update = steps_per_update
        self.num_seeds = num_seeds
        self.interval = interval
        self.metric_names = metric_names
        self.first_update = first_update  # updates done before this process started (resume)
        self.last_print = -math.inf
        self.pending: dict[int, list[np.ndarray]] = {}
        self.start_time: float | None = None
        self.start_update = first_update
        self.latest: np.ndarray | None = None  # the latest mean return and metrics that were not NaN

    def __call__(self, update: Any, episode_return: Any, *metrics: Any) -> None:
        update = int(np.asarray(update).ravel()[0])
        values = np.stack(
            [np.asarray(episode_return, np.float64).ravel()]
            + [np.asarray(m, np.float64).ravel() for m in metrics]
        )  # (1 + metrics, seeds reported in this call)
        self.pending.setdefault(update, []).append(values)
        reported = sum(v.shape[1] for v in self.pending[update])
        if reported < self.num_seeds:
            return
        complete = np.concatenate(self.pending.pop(update), axis=1)
        means = np.array([self._mean(row) for row in complete])
        self.latest = means if self.latest is None else np.where(np.isnan(means), self.latest, means)
        for old in [u for u in self.pending if u < update]:
            del self.pending[old]
        now = time.perf_counter()
        if self.start_time is None:  # the first update's time includes compilation
            self.start_time, self.start_update = now, update + 1
        if update + 1 >= self.total_updates or now - self.last_print >= self.interval:
            self.last_print = now
            print(self.line(update, now), flush=True)

    @staticmethod
    def _mean(values: np.ndarray) -> float:
        finite = values[~np.isnan(values)]
        return float(finite.mean()) if finite.size else math.nan

    def line(self, update: int, now: float) -> str:
        """The progress line of ``update``: the mean over seeds of the return and of each
        metric. Where no episode ended in this update (rollouts shorter than an episode)
        it shows the latest update's in which one did; ``n/a`` until then."""
        assert self.latest is not None
        ret = self.latest[0]
        text = f"{ret:9.3f}" if not math.isnan(ret) else "      n/a"
        extra = "".join(
            f" | {name} " + (f"{m:.3f}" if not math.isnan(m := self.latest[i + 1]) else "n/a")
            for i, name in enumerate(self.metric_names)
        )
        timesteps = (update + 1) * self.steps_per_update
        total = self.total_updates * self.steps_per_update
        assert self.start_time is not None
        elapsed, done = now - self.start_time, update + 1 - self.start_update
        if done > 0 and elapsed > 0:
            rate = done * self.steps_per_update * self.num_seeds / elapsed
            left = (self.total_updates - update - 1) * self.steps_per_update * self.num_seeds / rate
            speed = f"{rate:9,.0f} steps/s | left {time.strftime('%H:%M:%S', time.gmtime(left))}"
        else:
            speed = "        - steps/s | left --:--:--"
        return (
            f"update {update + 1:>5}/{self.total_updates} | timesteps {timesteps:>10,}/{total:,} "
            f"({100 * timesteps / total:3.0f}%) | return {text}{extra} | {speed}"
        )


def report_progress(progress: Any, update: jax.Array, metrics: dict, metric_names: tuple[str, ...]) -> None:
    """From inside a learner's update: hand ``progress`` the update's return and metrics."""
    if progress is not None:
        jax.debug.callback(progress, update, metrics["return_mean"], *(metrics[n] for n in metric_names))


def env_metric_names(env: Any) -> tuple[str, ...]:
    """The environment's episode metrics (``win_rate``, ``score`` ...), in declared order."""
    return tuple(getattr(env, "episode_metrics", {}) or {})


# --------------------------------------------------------------- metric history


class History:
    """The metrics of every update so far, on the host: name -> ``(num_seeds, num_updates, ...)``.

    Integer metrics start at 0 and floating ones at NaN until their update has run.
    """

    def __init__(self, arrays: dict[str, np.ndarray]):
        self.arrays = arrays

    @classmethod
    def empty(cls, chunk_shapes: dict[str, Any], num_updates: int) -> History:
        """Room for ``num_updates`` updates of metrics shaped like a slice's ``(seeds, chunk, ...)``."""
        arrays = {}
        for name, s in chunk_shapes.items():
            shape = (s.shape[0], num_updates, *s.shape[2:])
            fill = np.nan if np.issubdtype(s.dtype, np.floating) else 0
            arrays[name] = np.full(shape, fill, dtype=s.dtype)
        return cls(arrays)

    def put(self, first: int, metrics: dict[str, np.ndarray], count: int) -> None:
        for name, values in metrics.items():
            self.arrays[name][:, first : first + count] = values[:, :count]

    def upto(self, count: int) -> dict[str, np.ndarray]:
        return {name: values[:, :count] for name, values in self.arrays.items()}


def metrics_rows(
    metrics: dict[str, np.ndarray],
    agents: list[str],
    first_update: int = 0,
    metric_names: tuple[str, ...] = (),
) -> list[dict[str, Any]]:
    """Rows of the metrics CSV from arrays of shape ``(num_seeds, num_updates, ...)``
    holding updates ``first_update + 1 ...``: the returns and episode counts first, then
    the environment's ``metric_names``, then the rest by name. Per-agent arrays (last
    axis = agents) become ``<name>_<agent>`` columns."""
    num_seeds, num_updates = metrics["timestep"].shape[:2]
    leading = ("timestep", "return_mean", "return", "episode_length", "episodes", *metric_names)
    first = [k for k in leading if k in metrics]
    names = first + sorted(k for k in metrics if k not in first)
    rows = []
    for update in range(num_updates):  # update-major, so appending slices keeps the order
        for seed in range(num_seeds):
            row: dict[str, Any] = {"update": first_update + update + 1, "seed": seed}
            for name in names:
                value = metrics[name][seed, update]
                if np.ndim(value) == 1 and len(value) == len(agents):
                    row.update({f"{name}_{agent}": float(v) for agent, v in zip(agents, value, strict=True)})
                else:
                    row[name] = value.item()
            rows.append(row)
    return rows


def write_csv(path: Path, rows: list[dict[str, Any]], append: bool = False) -> None:
    """Write ``rows`` with a header (none: remove the file), or append them to the file
    (with a header if it does not exist yet)."""
    if not append:
        path.unlink(missing_ok=True)
    if not rows:
        return
    header = not path.exists()
    with path.open("a", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        if header:
            writer.writeheader()
        writer.writerows(rows)


# ------------------------------------------------------------------------ plots


def plot_learning_curve(path: Path, timesteps: np.ndarray, curves: dict[str, np.ndarray], title: str) -> None:
    """One panel per curve (the return first, then each environment metric): the mean
    over seeds against timesteps, shaded between the lowest and highest seed.

    Args:
        timesteps: ``(num_updates,)``.
        curves: name -> ``(num_seeds, num_updates)``; NaN where no episode finished
            (those updates are left out of the line).

    Raises:
        ImportError: without matplotlib (``pip install -e ".[baselines]"``).
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise ImportError('plotting learning curves needs matplotlib: pip install -e ".[baselines]"') from err
    fig, axes = plt.subplots(1, len(curves), figsize=(6 * len(curves), 4), squeeze=False)
    for ax, (name, values) in zip(axes[0], curves.items(), strict=True):
        with warnings.catch_warnings():  # updates before any episode finished are all-NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nanmean(values, axis=0)
            low, high = np.nanmin(values, axis=0), np.nanmax(values, axis=0)
        # Updates in which no episode ended (NaN) are left out, so that short rollouts
        # (A2C's 10 steps, a 25-step episode) still draw a line through the others.
        ended = ~np.isnan(mean)
        ax.plot(timesteps[ended], mean[ended], label=f"mean of {values.shape[0]} seed(s)")
        if values.shape[0] > 1:
            ax.fill_between(timesteps[ended], low[ended], high[ended], alpha=0.3, label="min-max over seeds")
        ax.set_xlabel("timesteps")
        ax.set_ylabel("episode return (mean over agents)" if name == "return_mean" else name)
        ax.grid(alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def run_title(config: dict) -> str:
    """``ippo_ff on HeuristicEnemySMAX-2s3z``: the algorithm and the environment with its
    scenario, layout or map."""
    return f"{config['ALG_NAME']} on {common.env_label(config['ENV_NAME'], config.get('ENV_KWARGS'))}"


# ------------------------------------------------------------------ run folder


def _write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename, so ``path`` is
    never half-written."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def save_params(run_dir: Path, params: Any) -> Path:
    """Write every seed's parameters to ``<run>/params.msgpack`` (atomically)."""
    path = run_dir / PARAMS
    _write_atomic(path, serialization.msgpack_serialize(jax.device_get(params)))
    return path


def save_config(run_dir: Path, config: dict) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    _write_atomic(run_dir / "config.yaml", yaml.safe_dump(config, sort_keys=False).encode())


def load_run(run_dir: str | Path) -> tuple[dict, Any]:
    """The config and parameters (a pytree of arrays, leading axis = seed) of a finished run.

    Raises:
        RunError: if ``run_dir`` is not a run folder, or its training has not finished.
    """
    run_dir = Path(run_dir)
    if not (run_dir / "config.yaml").is_file():
        raise RunError(f"{run_dir} is not a run folder (it has no config.yaml)")
    if not (run_dir / PARAMS).is_file():
        hint = f"; continue it with resume={run_dir}" if (run_dir / CHECKPOINTS).is_dir() else ""
        raise RunError(f"{run_dir} has no {PARAMS}: its training has not finished{hint}")
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    params = serialization.msgpack_restore((run_dir / PARAMS).read_bytes())
    return config, jax.tree.map(jnp.asarray, params)


def save_plot(
    run_dir: Path, config: dict, metrics: dict[str, np.ndarray], metric_names: tuple[str, ...]
) -> None:
    """The learning curve, or a warning saying why there is none."""
    curves = {"return_mean": metrics["return_mean"], **{n: metrics[n] for n in metric_names}}
    try:
        plot_learning_curve(run_dir / "learning_curve.png", metrics["timestep"][0], curves, run_title(config))
    except ImportError as err:
        print(f"warning: no learning_curve.png ({err})", file=sys.stderr)


# ------------------------------------------------------------------- checkpoints


class Checkpoints:
    """Orbax checkpoints of a run's training state and metric history in ``<run>/checkpoints``.

    A checkpoint's step is the number of updates done. Orbax writes a checkpoint into a
    temporary folder and renames it once complete; unfinished ones are never restored.
    """

    def __init__(self, directory: Path, max_to_keep: int = 2):
        import logging

        import orbax.checkpoint as ocp

        logging.getLogger("absl").setLevel(logging.WARNING)  # Orbax reports every file it writes

        self._ocp = ocp
        self.directory = directory
        options = ocp.CheckpointManagerOptions(
            max_to_keep=max_to_keep, enable_async_checkpointing=False, cleanup_tmp_directories=True
        )
        self.manager = ocp.CheckpointManager(directory.resolve(), options=options)

    def latest(self) -> int | None:
        """Updates done at the last complete checkpoint, or ``None``."""
        return self.manager.latest_step()

    @staticmethod
    def _items(leaves: list[Any]) -> dict[str, Any]:
        """The leaves Orbax stores, by position (it cannot store empty arrays, which
        come back from the runner the checkpoint is restored into)."""
        return {f"{i:05d}": leaf for i, leaf in enumerate(leaves) if np.size(leaf)}

    def save(self, step: int, runner: Any, history: History) -> None:
        args = self._ocp.args
        state = self._items(jax.tree.leaves(runner))
        self.manager.save(
            step,
            args=args.Composite(state=args.StandardSave(state), history=args.StandardSave(history.arrays)),
            force=True,
        )
        self.manager.wait_until_finished()

    def restore(self, step: int, runner_like: Any, history_like: History) -> tuple[Any, History]:
        """The runner (with the structure and shardings of ``runner_like``) and the
        history saved at ``step``."""
        args = self._ocp.args
        leaves, treedef = jax.tree.flatten(runner_like)
        abstract = jax.tree.map(self._ocp.utils.to_shape_dtype_struct, self._items(leaves))
        out = self.manager.restore(
            step,
            args=args.Composite(
                state=args.StandardRestore(abstract), history=args.StandardRestore(history_like.arrays)
            ),
        )
        stored = out["state"]
        restored = [stored.get(f"{i:05d}", leaf) for i, leaf in enumerate(leaves)]
        history = History({k: np.asarray(v) for k, v in out["history"].items()})
        return jax.tree.unflatten(treedef, restored), history

    def close(self) -> None:
        self.manager.close()

    def remove(self) -> None:
        self.close()
        shutil.rmtree(self.directory, ignore_errors=True)


# ------------------------------------------------------------------------ wandb


class WandbLog:
    """Live Weights & Biases logging, when ``wandb.mode`` is ``online`` or ``offline``.

    Each update's metrics (mean over seeds, per agent, and each seed's return) are logged
    as soon as the slice holding them returns. The run's files go to ``<run>/wandb``; a
    resumed run continues the same wandb run (its id is kept in ``<run>/wandb_id``).
    """

    def __init__(self, config: dict, run_dir: Path, agents: list[str]):
        self.run: Any = None
        self.agents = agents
        settings = config.get("wandb") or {}
        mode = settings.get("mode", "disabled")
        if mode == "disabled":
            return
        import wandb

        id_file = run_dir / "wandb_id"
        run_id = id_file.read_text().strip() if id_file.exists() else secrets.token_hex(4)
        id_file.write_text(run_id)
        self.run = wandb.init(
            project=settings.get("project"),
            entity=settings.get("entity"),
            tags=settings.get("tags") or None,
            name=run_dir.name,
            mode=mode,
            config=config,
            dir=str(run_dir),
            id=run_id,
            resume="allow",
        )

    def log(self, metrics: dict[str, np.ndarray]) -> None:
        """Log updates given as ``(num_seeds, updates, ...)`` arrays."""
        if self.run is None:
            return
        num_seeds, count = metrics["timestep"].shape[:2]
        for u in range(count):
            entry: dict[str, float] = {}
            for name, values in metrics.items():
                value = values[:, u]
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    if value.ndim == 2 and value.shape[1] == len(self.agents):
                        for i, agent in enumerate(self.agents):
                            entry[f"{name}/{agent}"] = float(np.nanmean(value[:, i]))
                    elif value.ndim == 1:
                        entry[name] = float(np.nanmean(value))
            for seed in range(num_seeds):
                entry[f"return_mean/seed_{seed}"] = float(metrics["return_mean"][seed, u])
            self.run.log(entry, step=int(metrics["timestep"][0, u]))

    def finish(self) -> None:
        if self.run is not None:
            self.run.finish()


# -------------------------------------------------------------------- training


def log_interval(config: dict, num_updates: int) -> int:
    """Updates per slice (``LOG_INTERVAL``; ``auto``: a twentieth of the run, at least 1)."""
    value = config.get("LOG_INTERVAL", "auto")
    if value in (None, "auto"):
        return max(1, math.ceil(num_updates / 20))
    if int(value) < 1:
        raise RunError(f"LOG_INTERVAL must be a positive number of updates or auto, got {value!r}")
    return min(int(value), num_updates)


@contextmanager
def stop_requests() -> Iterator[list[str]]:
    """While active, SIGTERM and SIGINT are recorded (the list gets the signal's name)
    instead of ending the process, so the training loop can checkpoint and stop at the
    end of the current slice; a second SIGINT ends it at once."""
    requests: list[str] = []
    previous = {}

    def handler(signum: int, frame: Any) -> None:
        del frame
        if requests and signum == signal.SIGINT:
            raise KeyboardInterrupt
        requests.append(signal.Signals(signum).name)
        print(f"{signal.Signals(signum).name}: stopping after this slice of updates ...", flush=True)

    if threading.current_thread() is threading.main_thread():  # signal handlers need the main thread
        for sig in (signal.SIGTERM, signal.SIGINT):
            previous[sig] = signal.signal(sig, handler)
    try:
        yield requests
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


class Stopped(Exception):
    """Training stopped on request (SIGTERM / SIGINT) after a checkpoint was written."""

    def __init__(self, run_dir: Path, updates: int, total: int, signal_name: str):
        self.run_dir = run_dir
        super().__init__(
            f"{signal_name}: stopped after update {updates}/{total}, checkpoint saved; continue with "
            f"resume={run_dir}"
        )


def train(
    make_learner: Callable[..., common.Learner],
    config: dict,
    run_dir: Path | None,
    steps_per_update: int,
    agents: list[str],
    metric_names: tuple[str, ...] = (),
    resume: bool = False,
) -> dict:
    """Train every seed of ``config`` in slices of ``LOG_INTERVAL`` updates, printing
    progress; with a ``run_dir``, write the run folder as it goes (process 0), checkpoint,
    and, with ``resume``, continue from its last checkpoint.

    Returns the training output on the host: ``{"params", "metrics"}`` (metrics
    ``(num_seeds, num_updates, ...)``).

    Raises:
        Stopped: after SIGTERM / SIGINT, once a checkpoint is written.
        RunError: ``resume`` with no checkpoint to resume from.
    """
    num_seeds = int(config["NUM_SEEDS"])
    progress = Progress(
        0, steps_per_update, num_seeds, float(config.get("PROGRESS_INTERVAL_S", 2.0)), metric_names
    )
    learner = make_learner(config, progress=progress)
    progress.total_updates = total = learner.num_updates
    chunk = log_interval(config, total)
    writer = run_dir is not None and jax.process_index() == 0

    checkpoints = Checkpoints(run_dir / CHECKPOINTS) if run_dir is not None else None
    if resume and (checkpoints is None or checkpoints.latest() is None):
        raise RunError(f"{run_dir} has no complete checkpoint to resume from")
    keys = common.shard_over_devices(common.seed_keys(config), config)
    runner = jax.jit(jax.vmap(learner.init))(keys)
    run_slice = jax.jit(jax.vmap(learner.run_updates, in_axes=(0, None, None)), donate_argnums=0)
    slice_shapes = jax.eval_shape(
        run_slice, runner, jax.ShapeDtypeStruct((chunk,), jnp.int32), jax.ShapeDtypeStruct((chunk,), bool)
    )[1]
    history = History.empty(slice_shapes, total)
    done = 0
    interval_s = float(config.get("CHECKPOINT_INTERVAL_S", 300))
    if resume:
        assert checkpoints is not None and run_dir is not None
        step = checkpoints.latest()
        assert step is not None
        runner, history = checkpoints.restore(step, runner, history)
        done = step
        progress.first_update = done
        print(f"resuming {run_dir} at update {done}/{total}", flush=True)
    if writer:
        assert run_dir is not None
        save_config(run_dir, config)
        write_csv(run_dir / "metrics.csv", metrics_rows(history.upto(done), agents, 0, metric_names))
    wandb_log = WandbLog(config, run_dir, agents) if writer and run_dir is not None else None
    last_checkpoint = time.monotonic()
    # Without a run folder there is nothing to save: signals keep their usual effect.
    stop_context: AbstractContextManager[list[str]] = (
        stop_requests() if checkpoints is not None else nullcontext([])
    )
    with stop_context as stop:
        while done < total:
            indices = done + np.arange(chunk, dtype=np.int32)
            runner, metrics = run_slice(runner, indices, indices < total)
            count = min(chunk, total - done)
            metrics = {k: np.asarray(v) for k, v in common.gather_to_host(metrics).items()}
            history.put(done, metrics, count)
            if writer:
                assert run_dir is not None and wandb_log is not None
                new = {k: v[:, :count] for k, v in metrics.items()}
                write_csv(run_dir / "metrics.csv", metrics_rows(new, agents, done, metric_names), append=True)
                wandb_log.log(new)
            done += count
            stopping = bool(stop)  # a signal arriving from here on is seen after the next slice
            due = interval_s <= 0 or time.monotonic() - last_checkpoint >= interval_s
            if checkpoints is not None and done < total and (due or stopping):
                checkpoints.save(done, runner, history)
                last_checkpoint = time.monotonic()
            if stopping and done < total:
                if wandb_log is not None:
                    wandb_log.finish()
                assert run_dir is not None
                raise Stopped(run_dir, done, total, stop[0])
    params = common.gather_to_host(jax.vmap(learner.params)(runner))
    out = {"params": params, "metrics": history.upto(total)}
    if writer:
        assert run_dir is not None and wandb_log is not None and checkpoints is not None
        save_params(run_dir, params)  # first: everything after it is optional
        if config.get("KEEP_CHECKPOINTS"):
            checkpoints.save(done, runner, history)
            checkpoints.close()
        else:
            checkpoints.remove()
        save_plot(run_dir, config, out["metrics"], metric_names)
        wandb_log.finish()
    elif checkpoints is not None:
        checkpoints.close()
    return out


# ------------------------------------------------------------------- command line


def _fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def _nothing_to_keep(run_dir: Path) -> bool:
    """Whether a new run's folder holds nothing worth keeping after a failure: no
    parameters and no complete checkpoint (only what hydra made, the config, an empty
    checkpoint folder, the metrics of updates that were never checkpointed)."""
    if not run_dir.is_dir() or (run_dir / PARAMS).exists():
        return False
    checkpoints = run_dir / CHECKPOINTS
    return not (checkpoints.is_dir() and any(p.name.isdigit() for p in checkpoints.iterdir()))


def resumed_config(run_dir: Path, overrides: list[str]) -> dict:
    """The saved configuration of the run to continue, checking the command line asks
    nothing else."""
    others = [o for o in overrides if not o.startswith("resume=")]
    if others:
        raise RunError(
            f"resume continues a run with its saved config.yaml; drop the other overrides {others}"
        )
    if not (run_dir / "config.yaml").is_file():
        raise RunError(f"resume={run_dir}: not a run folder (no config.yaml)")
    if (run_dir / PARAMS).is_file() and not (run_dir / CHECKPOINTS).is_dir():
        raise RunError(f"resume={run_dir}: this run has finished ({PARAMS} is there)")
    config = yaml.safe_load((run_dir / "config.yaml").read_text())
    return dict(config)


def check_overrides(family: str, overrides: list[str]) -> None:
    """Check the command line's ``KEY=value`` overrides before hydra composes them, so a
    typo is one line naming the choices instead of hydra's multi-line report.

    Raises:
        RunError: an unknown ``alg``/``env`` choice or an unknown key (with the closest
            known ones).
    """
    import difflib

    from omegaconf import OmegaConf

    dirs = common.config_dirs(family)
    groups = {p.name for d in dirs for p in d.iterdir() if p.is_dir()}
    plain = [o for o in overrides if "=" in o and not o.startswith(("hydra.", "+", "~", "-"))]
    for override in plain:
        key, value = override.split("=", 1)
        if key in groups and "," not in value:  # a comma is a multirun sweep, checked per job
            options = sorted({p.stem for d in dirs for p in (d / key).glob("*.yaml")})
            if value not in options:
                close = difflib.get_close_matches(value, options, n=3)
                hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
                raise RunError(f"unknown {key} {value!r}{hint}; the choices are {', '.join(options)}")
    chosen = [o for o in plain if o.split("=", 1)[0] in groups and "," not in o]
    try:
        base = OmegaConf.create(common.compose_config(family, chosen))
    except Exception as err:  # pragma: no cover - the group choices were checked above
        raise RunError(str(err).splitlines()[0]) from err
    for override in plain:
        key, value = override.split("=", 1)
        if key in groups or key == "resume":
            continue
        if OmegaConf.select(base, key, default=_MISSING) is _MISSING:
            parent, _, leaf = key.rpartition(".")
            node = OmegaConf.select(base, parent) if parent else base
            known = list(node.keys()) if OmegaConf.is_dict(node) else []
            close = difflib.get_close_matches(leaf, [str(k) for k in known], n=1)
            hint = f" (did you mean {(parent + '.' if parent else '') + close[0]!r}?)" if close else ""
            raise RunError(f"unknown config key {key!r}{hint}; to add a new key use +{key}={value}")


_MISSING = object()


def hydra_main(config_path: str, run: Callable[..., dict]) -> None:
    """The command line of a training script: compose ``baselines/<config_path>/config.yaml``
    with the command-line overrides (or, with ``resume=<run folder>``, take that run's
    saved config), join a multi-host run if asked, and train with
    ``run(config, run_dir, resume=...)`` into hydra's run folder.

    Errors in what the user asked for (a bad value, a run folder that cannot be resumed)
    are one line on stderr and exit status 2; a folder made for a run that failed before
    writing anything is removed. SIGTERM / SIGINT stop the run after a checkpoint (exit
    status 128 + the signal's number)."""
    import logging

    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import OmegaConf

    common.register_resolvers()
    config_dir = str(Path(__file__).resolve().parent / config_path)
    args = sys.argv[1:]
    # Shared config folders (common.SHARED_CONFIG) join hydra's search path.
    sys.argv = [sys.argv[0], *common.searchpath_overrides(Path(config_path).name), *args]
    if not any(a.startswith("-") for a in args) and not any(a.startswith("resume=") for a in args):
        try:  # hydra's own report of a typo is several lines; ours is one
            check_overrides(Path(config_path).name, args)
        except RunError as err:
            _fail(str(err))

    @hydra.main(version_base=None, config_path=config_dir, config_name="config")
    def _main(cfg: Any) -> None:
        logging.getLogger("jax").setLevel(logging.WARNING)
        hydra_cfg = HydraConfig.get()
        run_dir = Path(hydra_cfg.runtime.output_dir)
        resume = cfg.get("resume")
        try:
            if resume:
                config = resumed_config(Path(resume), list(hydra_cfg.overrides.task))
            else:
                composed = OmegaConf.to_container(cfg, resolve=True)
                assert isinstance(composed, dict)
                config = {str(k): v for k, v in composed.items() if k != "resume"}
            common.init_distributed(config)
            where = ""
            if jax.process_count() > 1:
                processes, devices = jax.process_count(), jax.device_count()
                where = f" (process {jax.process_index()} of {processes}, {devices} devices)"
            print(f"{run_title(config)}, {config['NUM_SEEDS']} seed(s){where} -> {run_dir}", flush=True)
            out = run(config, run_dir, resume=bool(resume))
        except Stopped as stopped:
            print(stopped, file=sys.stderr, flush=True)
            sys.exit(128 + (signal.SIGINT if "SIGINT" in str(stopped) else signal.SIGTERM))
        except (ValueError, TypeError, KeyError, FileNotFoundError) as err:  # RunError is a ValueError
            if not resume and _nothing_to_keep(run_dir):
                shutil.rmtree(run_dir)
            _fail(str(err) if not isinstance(err, KeyError) else f"missing config key {err}")
        except BaseException:
            if not resume and _nothing_to_keep(run_dir):
                shutil.rmtree(run_dir)
            raise
        final = np.asarray(out["metrics"]["return_mean"])[:, -1]
        print(f"final return (mean over agents) per seed: {np.round(final, 3).tolist()}")
        if jax.process_index() == 0:  # the process that writes the run folder
            print(f"saved config.yaml, metrics.csv, {PARAMS} and learning_curve.png in {run_dir}")

    _main()


def train_and_save(
    make_learner: Callable[..., common.Learner],
    config: dict,
    run_dir: Path | None,
    steps_per_update: int,
    agents: list[str],
    env: Any,
    resume: bool = False,
) -> dict:
    """:func:`train` with the environment's episode metrics reported (what a script's
    ``run`` calls)."""
    return train(make_learner, config, run_dir, steps_per_update, agents, env_metric_names(env), resume)


__all__ = [
    "Checkpoints",
    "History",
    "Progress",
    "RunError",
    "Stopped",
    "hydra_main",
    "load_run",
    "train",
    "train_and_save",
]
