"""MABrax's default physics is JaxMARL 0.2.0's: from the same keys and the same robot
actions, our default MABrax and JaxMARL 0.2.0's (Brax 0.14.2, ``positional``, in its own
virtual environment, ``tests/oracles/mabrax_oracle.py``) give the same robot trajectory:
the Brax observation (the whole robot state) at the start and after every step, the
shared reward and ``done``, through early terminations, truncation at the episode length
and the automatic resets that follow.

The two libraries split the robot between agents differently (ours follows Multi-Agent
MuJoCo, ``docs/environments/mabrax.md``), so each side plays the same robot action
vector through its own ``agent_action_mapping``. Random actions stay inside ``[-1, 1]``
(JaxMARL passes actions outside it on unclipped, ours clips them: a documented
difference). The Hopper (planar, terminates when it falls) and the Ant (3-d, four legs
on the ground) run by default; ``JAXMARL_FULL_ORACLES=1`` adds the other three robots.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as jit
from jaxmarl020 import Recorder
from mabrax_episode import play
from settings import FULL_ORACLES

import jaxmarl

pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("mabrax_oracle")]

WORKER = Path(__file__).with_name("mabrax_oracle.py")
TASKS = ["hopper_3x1", "ant_4x2"] + (
    ["halfcheetah_6x1", "walker2d_2x3", "humanoid_9|8"] if FULL_ORACLES else []
)
EPISODES, STEPS, EPISODE_LENGTH = 4, 45, 20  # two truncations and resets per episode


def case(task: str) -> tuple[np.ndarray, np.ndarray]:
    """Keys and robot actions (uniform in [-1, 1]) of a task's episodes."""
    env = jaxmarl.make(task)
    size = sum(env.action_space(a).shape[0] for a in env.agents)
    key = jax.random.PRNGKey(TASKS.index(task))
    k_keys, k_act = jax.random.split(key)
    keys = np.asarray(jax.random.split(k_keys, EPISODES))
    actions = np.asarray(jax.random.uniform(k_act, (EPISODES, STEPS, size), minval=-1.0, maxval=1.0))
    return keys, actions


def compile_replay(task: str) -> Callable[[np.ndarray, np.ndarray], dict]:
    """Our default MABrax playing the robot actions, compiled before the recording exists;
    keys split as the worker splits them."""
    env = jaxmarl.make(task, episode_length=EPISODE_LENGTH)

    def episode(key, acts):
        return play(env, env.get_global_state, key, acts)

    keys, actions = case(task)
    compiled = jit(jax.vmap(episode)).lower(jnp.asarray(keys), jnp.asarray(actions)).compile()

    def run(keys: np.ndarray, actions: np.ndarray) -> dict:
        start, obs, reward, done = jax.device_get(compiled(jnp.asarray(keys), jnp.asarray(actions)))
        return {"start_obs": start, "obs": obs, "reward": reward, "done": done}

    return run


@pytest.fixture(scope="module")
def recordings(tmp_path_factory) -> Iterator[Callable[[str], tuple[dict, dict]]]:
    """``recording(task)``: JaxMARL's trajectories and ours. One JaxMARL worker records
    every task in turn, started here; each test compiles its own side meanwhile."""
    tmp = tmp_path_factory.mktemp("mabrax_oracle")
    paths = []
    for task in TASKS:
        keys, actions = case(task)
        src = tmp / f"{task}_in.npz"
        np.savez(src, task=task, episode_length=EPISODE_LENGTH, keys=keys, actions=actions)
        paths += [src, tmp / f"{task}_out.npz"]
    oracle = Recorder(WORKER, paths, cwd=tmp)
    done: dict[str, tuple[dict, dict]] = {}

    def recording(task: str) -> tuple[dict, dict]:
        if task not in done:
            run = compile_replay(task)
            dst = tmp / f"{task}_out.npz"
            oracle.wait(dst)
            with np.load(dst) as data:
                theirs = {k: data[k] for k in data.files}
            done[task] = (theirs, run(*case(task)))
        return done[task]

    yield recording
    oracle.close()


@pytest.mark.parametrize("task", TASKS)
def test_default_physics_is_jaxmarls(recordings, task):
    theirs, ours = recordings(task)
    for name in ("start_obs", "obs", "reward", "done"):
        mine, ref = ours[name], theirs[name]
        assert mine.shape == ref.shape, (name, mine.shape, ref.shape)
        bad = np.argwhere(mine != ref)
        where = tuple(bad[0]) if len(bad) else None
        assert where is None, (
            f"{task}: {name} differs first at {where}: ours {mine[where]}, JaxMARL {ref[where]}"
        )
    # The sample covers truncations (every EPISODE_LENGTH steps at the latest) and resets.
    assert theirs["done"].sum() >= EPISODES * (STEPS // EPISODE_LENGTH)
