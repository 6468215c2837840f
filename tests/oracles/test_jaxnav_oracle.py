"""Our JaxNav against JaxMARL 0.2.0's: same keys, same levels, same transitions, bit for bit.

Each case below is a configuration (map type, robots, action type, evaporation, reward
and lidar options, hand-made levels). JaxMARL plays its episodes in a worker process
(``jaxnav_oracle.py``): from ``reset(key)``, robots act with a mix of uniformly random
actions and actions steered towards their goal (so that goals are reached, robots hit
walls and each other and time runs out within a short sample), through ``step`` with its
automatic resets. Our env replays the recorded actions from the same keys in one vmapped
``lax.scan`` per case, and must agree *exactly* (``np.array_equal``, floats included) on

- every level our generator draws: the start state of each episode and every automatic
  reset (walls, start poses, goals, lambda), for every map type: JaxNav's level
  generators consume the PRNG key as JaxMARL's do;
- after every step: every state field (poses, velocities, flags, step counter, map),
  every robot's observation (lidar included), reward and done, and JaxMARL's infos
  (``NumC``, ``GoalR``, ``AgentC``, ``MapC``, ``TimeO``, ``Return``).

What JaxMARL 0.2.0 cannot run is handled as documented in ``jaxnav_oracle.py`` and the
"Differences" section of ``docs/environments/jaxnav.md`` (circular robots' wall test,
the sampled lambda in the reward). ``Grid-Buffer`` has no comparable counterpart (JaxMARL
ignores the buffer and cannot step circular robots) and ``normalise_obs=False`` and
``do_sep_reward=True`` fail there; the rules tests cover them.

CI plays 6 episodes of 60 steps in each of 5 cases that together hold every option;
``JAXMARL_FULL_ORACLES=1`` plays 64 episodes of 300 steps and adds three cases (the
default configuration among them); ``JAXNAV_ORACLE_EPISODES`` sets another number of
episodes. Barn levels are slow to draw in JaxMARL (a depth-first search of 1800
sequential steps per attempt, at every step since ``step`` draws the reset level), so
that case steps with ``step_env`` (no automatic reset) and compares its start levels.
The test asserts the sample covers goals reached, wall and robot collisions, time-outs,
episodes ending before the time limit and evaporated robots.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import parity_jit as jit
from jaxmarl020 import Recorder
from settings import FULL_ORACLES, oracle_count

from jaxmarl.environments.jaxnav import JaxNav, make_jaxnav_singleton

# One worker plays the whole module, so each case is recorded once (the module fixture).
pytestmark = [pytest.mark.oracle, pytest.mark.xdist_group("jaxnav_oracle")]

WORKER = Path(__file__).with_name("jaxnav_oracle.py")
EPISODES = oracle_count(reduced=6, full=64, variable="JAXNAV_ORACLE_EPISODES")
STEPS = 300 if FULL_ORACLES else 60
FIELDS = (
    "pos",
    "theta",
    "vel",
    "done",
    "term",
    "goal_reached",
    "move_term",
    "step",
    "ep_done",
    "goal",
    "map_data",
)
INFOS = ("NumC", "GoalR", "AgentC", "MapC", "TimeO", "Return")
SINGLE_MAP = [
    "1 1 1 1 1 1 1 1",
    "1 0 0 0 0 0 0 1",
    "1 0 1 1 0 0 0 1",
    "1 0 0 0 0 1 0 1",
    "1 0 0 0 0 1 0 1",
    "1 0 0 1 0 0 0 1",
    "1 0 0 0 0 0 0 1",
    "1 1 1 1 1 1 1 1",
]
CUSTOM_PHYSICS = {
    "lidar_num_beams": 50,
    "lidar_angle_factor": 0.5,
    "lidar_max_range": 4.0,
    "lidar_range_resolution": 0.1,
    "min_v": -0.5,
    "max_v": 2.0,
    "max_v_acc": 3.0,
    "max_w": 1.0,
    "max_w_acc": 2.0,
    "dt": 0.2,
    "goal_radius": 0.8,
    "weight_g": 0.5,
    "lim_w": 0.3,
    "weight_w": -0.1,
    "lidar_thresh": 0.3,
    "coll_rew": -2.0,
    "goal_rew": 3.0,
}
# Every option is in a CI case; the full run adds the default configuration and two more.
CASES: dict[str, dict] = {
    "discrete_evaporating": {
        "env": {
            "num_agents": 4,
            "act_type": "Discrete",
            "evaporating": True,
            "info_by_agent": False,
            "share_only_sparse": True,
            "rew_lambda": 0.3,
            "max_steps": 50,
        },
        "random_share": 0.2,
    },
    "circles_grid_sampler_custom_physics": {
        "env": {
            "map_id": "Grid-Rand",
            "num_agents": 3,
            "max_steps": 40,
            "map_params": {
                "map_size": [9, 9],
                "fill": 0.5,
                "sample_test_case_type": "grid",
                "valid_path_check": True,
            },
            **CUSTOM_PHYSICS,
        },
        "random_share": 0.2,
    },
    "barn": {
        "env": {
            "map_id": "Grid-Rand-Barn",
            "num_agents": 1,
            "map_params": {"map_size": [30, 30], "fill": 0.4},
        },
        "random_share": 0.1,
        "auto_reset": False,
    },
    "single_map_sampled_lambda": {
        "env": {
            "map_id": "Grid-Rand-Poly-Single",
            "num_agents": 2,
            "fixed_lambda": False,
            "lambda_range": [0.1, 0.9],
            "max_steps": 50,
            "map_params": {"map_data": SINGLE_MAP, "valid_path_check": True, "start_pad": 1.2},
        },
        "own_reward": True,
        "random_share": 0.2,
    },
    "singleton_circle_cross": {
        "singleton": "CircleCross",
        "env": {"num_agents": 6, "max_steps": 50},
        "random_share": 0.1,
    },
}
if FULL_ORACLES:
    CASES["default"] = {"env": {}, "random_share": 0.3}
    CASES["singleton_corridor_evaporating"] = {
        "singleton": "Corridor4",
        "env": {"map_id": "Grid-Rand-Poly", "evaporating": True, "max_steps": 80},
        "random_share": 0.1,
    }
    CASES["poly_custom_physics"] = {
        "env": {
            "num_agents": 5,
            "max_steps": 40,
            "map_params": {
                "map_size": [13, 13],
                "fill": 0.2,
                "start_pad": 1.2,
                "min_dist_to_goal": 2.0,
                "max_dist_to_goal": 5.0,
            },
            **CUSTOM_PHYSICS,
        },
        "random_share": 0.3,
    }


def make(case: dict) -> JaxNav:
    if case.get("singleton"):
        return make_jaxnav_singleton(case["singleton"], **case["env"])
    return JaxNav(**case["env"])


def episode_keys(index: int) -> np.ndarray:
    return np.asarray(jax.random.split(jax.random.PRNGKey(1000 + index), EPISODES))


def compile_replay(env: JaxNav, auto_reset: bool = True) -> Callable[[np.ndarray, np.ndarray], dict]:
    """Our episodes from the same keys with the recorded actions, compiled for the
    recording's shapes before it exists (one call replays every episode); without
    ``auto_reset`` through ``step_env``, dones as ``step`` would give them."""

    def step_env(key, state, actions):
        obs, state, reward, terminated, info = env.step_env(key, state, actions)
        time_up = state.step >= env.max_steps
        done = {a: terminated[a] | terminated["__all__"] | time_up for a in env.agents}
        done["__all__"] = terminated["__all__"] | time_up
        return obs, state, reward, done, info

    def fields(state):
        out = {f: getattr(state, f) for f in FIELDS}
        out["rew_lambda"] = jnp.reshape(state.rew_lambda, ())
        return out

    def episode(key, acts):
        key_reset, key_run = jax.random.split(key)
        obs, state = env.reset(key_reset)

        def body(state, xs):
            key, act = xs
            _, key_step = jax.random.split(key)
            step = env.step if auto_reset else step_env
            obs, state, reward, done, info = step(
                key_step, state, {a: act[i] for i, a in enumerate(env.agents)}
            )
            out = fields(state)
            out["obs"] = jnp.stack([obs[a] for a in env.agents])
            out["reward"] = jnp.stack([reward[a] for a in env.agents])
            out["dones"] = jnp.stack([done[a] for a in env.agents])
            out["done_all"] = done["__all__"]
            for name in INFOS:
                out[f"info_{name}"] = info[name]
            return state, out

        first = fields(state)
        first["obs"] = jnp.stack([obs[a] for a in env.agents])
        _, rest = jax.lax.scan(body, state, (jax.random.split(key_run, STEPS), acts))
        return first, rest

    space = env.action_space(env.agents[0])
    dtype = jnp.int32 if space.dtype is None or jnp.issubdtype(space.dtype, jnp.integer) else jnp.float32
    compiled = (
        jit(jax.vmap(episode))
        .lower(
            jax.ShapeDtypeStruct((EPISODES, 2), jnp.uint32),
            jax.ShapeDtypeStruct((EPISODES, STEPS, env.num_agents, *space.shape), dtype),
        )
        .compile()
    )

    def run(keys: np.ndarray, actions: np.ndarray) -> dict:
        first, rest = jax.device_get(compiled(jnp.asarray(keys), jnp.asarray(actions)))
        out = {f"start_{k}": np.asarray(v) for k, v in first.items()}
        out.update({k: np.asarray(v) for k, v in rest.items()})
        return out

    return run


def expected_rewards(theirs: dict) -> np.ndarray:
    """With ``own_reward`` JaxMARL's reward is each robot's own; mix it with the lambda of
    the episode each step belongs to (the state before the step)."""
    lam = np.concatenate([theirs["start_rew_lambda"][:, None], theirs["rew_lambda"][:, :-1]], axis=1)[
        ..., None
    ]
    own = theirs["reward"]
    return np.asarray(jax.jit(lambda lam, own: lam * own + (1 - lam) * own.mean(-1, keepdims=True))(lam, own))


def first_mismatch(name: str, ours: dict, theirs: dict, own_reward: bool) -> str | None:
    found = []
    for key in sorted(theirs):
        if key == "actions":
            continue
        mine, ref = ours[key], theirs[key]
        if mine.shape != ref.shape:
            return f"{name}: {key} has shape {mine.shape}, JaxMARL's {ref.shape}"
        if key in ("reward", "info_Return") and own_reward:
            # Mixed here from JaxMARL's own rewards: equal up to float rounding (XLA may
            # fuse a * b + c into one fused multiply-add in one program and not another).
            bad = ~np.isclose(mine, expected_rewards(theirs), rtol=0, atol=1e-6)
        else:
            bad = mine != ref
        if bad.any():
            e, *rest = np.argwhere(bad)[0]
            step = "the start" if key.startswith("start_") else f"step {rest[0] + 1}"
            where = (e, rest[0]) if rest else (e,)
            found.append(
                (
                    int(rest[0]) if rest else -1,
                    f"{name}: {key} differs first at {step} of episode {e}: "
                    f"ours {mine[where]} vs JaxMARL {ref[where]}",
                )
            )
    return min(found)[1] if found else None


@pytest.fixture(scope="module")
def recordings(tmp_path_factory) -> Iterator[Callable[[str], tuple[dict, dict]]]:
    """``recording(name)``: JaxMARL's recording of that case and our replay. One JaxMARL
    worker process records every case in turn, started here; each test compiles its own
    replay meanwhile, then waits for its case's file (so each pays about its own share)."""
    tmp = tmp_path_factory.mktemp("jaxnav_oracle")
    paths = []
    for i, (name, case) in enumerate(CASES.items()):
        src = tmp / f"{name}_in.npz"
        np.savez(src, config=json.dumps({**case, "steps": STEPS}), keys=episode_keys(i))
        paths += [src, tmp / f"{name}_out.npz"]
    oracle = Recorder(WORKER, paths, cwd=tmp)
    done: dict[str, tuple[dict, dict]] = {}

    def recording(name: str) -> tuple[dict, dict]:
        if name not in done:
            case, dst = CASES[name], tmp / f"{name}_out.npz"
            run = compile_replay(make(case), case.get("auto_reset", True))
            oracle.wait(dst)
            with np.load(dst) as data:
                theirs = {k: data[k] for k in data.files}
            done[name] = (theirs, run(episode_keys(list(CASES).index(name)), theirs["actions"]))
        return done[name]

    yield recording
    oracle.close()


@pytest.mark.parametrize("name", list(CASES))
def test_levels_and_transitions_match_jaxmarl(recordings, name):
    theirs, ours = recordings(name)
    problem = first_mismatch(name, ours, theirs, bool(CASES[name].get("own_reward")))
    assert problem is None, problem


def test_the_sample_exercises_the_rules(recordings):
    """Goals reached, wall and robot collisions, time-outs, episodes that end before the
    time limit, evaporated robots, and automatic resets all happen in the sample."""
    counts = {"goals": 0, "wall hits": 0, "robot hits": 0, "time-outs": 0, "early ends": 0, "evaporated": 0}
    for name in CASES:
        theirs, _ = recordings(name)
        counts["goals"] += int(theirs["info_GoalR"].sum())
        counts["wall hits"] += int(theirs["info_MapC"].sum())
        counts["robot hits"] += int(theirs["info_AgentC"].sum())
        counts["time-outs"] += int(theirs["info_TimeO"].sum())
        max_steps = make(CASES[name]).max_steps
        before = np.concatenate([theirs["start_step"][:, None], theirs["step"][:, :-1]], axis=1)
        counts["early ends"] += int((theirs["done_all"] & (before + 1 < max_steps)).sum())
        if CASES[name]["env"].get("evaporating"):
            parked = theirs["done"] & np.all(theirs["pos"] == 0, axis=-1)
            counts["evaporated"] += int(parked.sum())
    assert all(v > 0 for v in counts.values()), counts
