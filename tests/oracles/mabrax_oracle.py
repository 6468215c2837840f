"""Play MABrax episodes in JaxMARL 0.2.0 and record the robot's trajectory (run by
``test_mabrax_oracle.py`` with the oracle's interpreter, see ``jaxmarl020.py``)::

    python mabrax_oracle.py case1.npz record1.npz [case2.npz record2.npz ...]

A case holds ``task`` (e.g. ``"hopper_3x1"``), ``episode_length``, ``keys`` uint32
``(E, 2)`` and ``actions`` float32 ``(E, T, num_actuators)``: robot action vectors,
which each episode's agents play through JaxMARL's own ``agent_action_mapping`` (the
two libraries split the robot between agents differently, so the comparison is at the
robot's level). Episode ``e`` starts from ``reset(k0)`` and takes ``T`` steps
``step(k_t, state, actions)`` (JaxMARL's automatic reset included), keys split from
``keys[e]`` as the test splits them. JaxMARL's default backend (``positional``).

The record gets the Brax observation (the full robot state, ``state.obs``) at the start
``start_obs`` ``(E, D)`` and after each step ``obs`` ``(E, T, D)``, and each step's shared
``reward`` and ``done`` ``(E, T)``.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import warnings
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from mabrax_episode import play  # this file's folder


def record(task: str, episode_length: int, keys: np.ndarray, actions: np.ndarray) -> dict:
    import jaxmarl

    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")  # JaxMARL warns that MABrax is deprecated
        env = jaxmarl.make(task, episode_length=episode_length)

    def episode(key, acts):
        return play(env, lambda state: state.obs, key, acts)

    # Compiled as the test compiles ours (tests/fast_compile.py).
    run = jax.jit(jax.vmap(episode), compiler_options={"xla_backend_optimization_level": 0})
    start, obs, reward, done = jax.device_get(run(jnp.asarray(keys), jnp.asarray(actions)))
    return {"start_obs": start, "obs": obs, "reward": reward, "done": done}


def main(paths: list[str]) -> None:
    for src, dst in zip(paths[::2], paths[1::2], strict=True):
        with np.load(src) as data:
            out = record(str(data["task"]), int(data["episode_length"]), data["keys"], data["actions"])
        partial = Path(dst).with_suffix(".partial.npz")  # the test waits for dst: write it whole
        np.savez(partial, **out)
        os.replace(partial, dst)


if __name__ == "__main__":
    main(sys.argv[1:])
