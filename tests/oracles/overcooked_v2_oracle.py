"""Drive JaxMARL 0.2.0's OvercookedV2 from given start states, keys and actions.

Runs with the oracle's interpreter (``jaxmarl020.run_oracle``), from a folder outside the
repository::

    python overcooked_v2_oracle.py FOLDER

``FOLDER/jobs.json`` lists jobs; job ``name`` reads ``FOLDER/<name>_in.npz`` and writes
``FOLDER/<name>_out.npz``. States cross in our ``State``'s fields (``pos`` ``(N, 2)`` as
``(x, y)``, ``dir``, ``inventory``, ``items`` and ``timer`` ``(H, W)``, ``recipe``,
``new_correct_delivery``, ``ingredient_permutations``, ``step``), each with leading
batch (and time) axes; JaxMARL's ``State`` keeps the terrain in ``grid[..., 0]`` (also
recorded, as ``static``) and has no permutations without ``op_ingredient_permutations``
(recorded as the identity).

Job kinds:

- ``"reset"``: for each of ``configs`` (env keywords), ``jax.vmap(env.reset)(keys)``:
  ``<c>_<field>`` and ``<c>_obs`` ``(B, N, ...)``.
- ``"dynamics"``: from the start states ``start_<field>``, what ``env.step(keys[t],
  state, actions[t], reset_state=start)`` does at every step (``step_env`` with the key
  JaxMARL's ``step`` gives it; an episode that ends restarts from the start state):
  ``<field>`` ``(B, T + 1, ...)``, the start and then each step's state before any
  restart; ``obs`` (``step_env``'s) ``(B, T + 1, N, ...)`` and ``obs_<j>_<i>`` for
  each observation variant ``j`` (env keywords merged into the job's, observing the
  same states) and agent ``i`` ``(B, T + 1, ...)``; ``reward`` and ``done`` ``(B, T)``,
  ``shaped`` ``(B, T, N)``.

Observation types are given as strings; everything is compiled without backend
optimisations (tiny workloads, compile time dominates).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.overcooked_v2 import layouts as jaxmarl_layouts
from jaxmarl.environments.overcooked_v2.common import Agent, Position
from jaxmarl.environments.overcooked_v2.overcooked import ObservationType, OvercookedV2, State

FIELDS = (
    "pos",
    "dir",
    "inventory",
    "items",
    "timer",
    "recipe",
    "new_correct_delivery",
    "ingredient_permutations",
    "step",
)
OPTIONS = {"xla_backend_optimization_level": 0}


def layout_of(name: str) -> Any:
    if name in jaxmarl_layouts.overcooked_v2_layouts:
        return jaxmarl_layouts.overcooked_v2_layouts[name]
    return jaxmarl_layouts.Layout.from_string(getattr(jaxmarl_layouts, name))


def make_env(layout: str, kwargs: dict[str, Any], buffer: State | None = None) -> OvercookedV2:
    kwargs = dict(kwargs)
    kind = kwargs.get("observation_type")
    if isinstance(kind, list):
        kwargs["observation_type"] = [ObservationType(k) for k in kind]
    elif kind is not None:
        kwargs["observation_type"] = ObservationType(kind)
    return OvercookedV2(layout=layout_of(layout), initial_state_buffer=buffer, **kwargs)


def to_theirs(env: OvercookedV2, fields: dict[str, Any]) -> State:
    """JaxMARL's State of one of our states (no batch axis)."""
    static = jnp.asarray(env.layout.static_objects, jnp.int32)
    grid = jnp.stack(
        [static, jnp.asarray(fields["items"], jnp.int32), jnp.asarray(fields["timer"], jnp.int32)], -1
    )
    pos = jnp.asarray(fields["pos"], jnp.int32)
    perms = (
        jnp.asarray(fields["ingredient_permutations"], jnp.int32) if env.op_ingredient_permutations else None
    )
    return State(
        agents=Agent(
            pos=Position(x=pos[:, 0], y=pos[:, 1]),
            dir=jnp.asarray(fields["dir"], jnp.int32),
            inventory=jnp.asarray(fields["inventory"], jnp.int32),
        ),
        grid=grid,
        recipe=jnp.asarray(fields["recipe"], jnp.int32),
        new_correct_delivery=jnp.asarray(fields["new_correct_delivery"], bool),
        ingredient_permutations=perms,
        step=jnp.asarray(fields["step"], jnp.int32),
        done=jnp.asarray(False),
    )


def from_theirs(env: OvercookedV2, state: State) -> dict[str, jax.Array]:
    """Our fields (and ``static``) of one JaxMARL state (no batch axis)."""
    n, k = env.num_agents, env.layout.num_ingredients
    perms = state.ingredient_permutations
    if perms is None:
        perms = jnp.broadcast_to(jnp.arange(k, dtype=jnp.int32), (n, k))
    return {
        "pos": jnp.stack([state.agents.pos.x, state.agents.pos.y], -1),
        "dir": state.agents.dir,
        "inventory": state.agents.inventory,
        "items": state.grid[..., 1],
        "timer": state.grid[..., 2],
        "recipe": state.recipe,
        "new_correct_delivery": state.new_correct_delivery,
        "ingredient_permutations": perms,
        "step": state.step,
        "static": state.grid[..., 0],
    }


def stacked(env: OvercookedV2, obs: dict[str, jax.Array]) -> jax.Array:
    return jnp.stack([obs[a] for a in env.agents])


def compact(x: np.ndarray) -> np.ndarray:
    """Integer observations as uint8 when every value fits (they are compared as values)."""
    if np.issubdtype(x.dtype, np.integer) and x.size and x.min() >= 0 and x.max() <= 255:
        return x.astype(np.uint8)
    return x


def run_reset(spec: dict[str, Any], data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    buffer = None
    if "buffer_pos" in data:
        buffer = jax.vmap(lambda f: to_theirs(make_env(spec["layout"], {}), f))(
            {k: jnp.asarray(data[f"buffer_{k}"]) for k in FIELDS}
        )
    envs = [
        make_env(spec["layout"], config, buffer if config.pop("_buffer", False) else None)
        for config in spec["configs"]
    ]

    def resets(keys: jax.Array) -> list[Any]:
        out = []
        for env in envs:
            obs, state = jax.vmap(env.reset)(keys)
            out.append(
                (
                    jax.vmap(lambda s, e=env: from_theirs(e, s))(state),
                    jax.vmap(lambda o, e=env: stacked(e, o))(obs),
                )
            )
        return out

    results = jax.device_get(jax.jit(resets, compiler_options=OPTIONS)(jnp.asarray(data["keys"])))
    out = {}
    for c, (fields, obs) in enumerate(results):
        out.update({f"{c}_{k}": np.asarray(v) for k, v in fields.items()})
        out[f"{c}_obs"] = compact(np.asarray(obs))
    return out


def run_dynamics(spec: dict[str, Any], data: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    env = make_env(spec["layout"], spec["env"])
    variants = [make_env(spec["layout"], {**spec["env"], **v}) for v in spec["obs_variants"]]

    def observe(state: State) -> list[list[jax.Array]]:
        return [[v.get_obs(state)[a] for a in v.agents] for v in variants]

    def begin(start_fields: dict[str, jax.Array]) -> tuple[State, Any]:
        start = to_theirs(env, start_fields)
        return start, (from_theirs(env, start), stacked(env, env.get_obs(start)), observe(start))

    def step(start: State, state: State, acts: jax.Array, key: jax.Array) -> tuple[State, Any]:
        k_step, _ = jax.random.split(key)  # JaxMARL's step passes this key to step_env
        obs, final, reward, done, info = env.step_env(
            k_step, state, {a: acts[i] for i, a in enumerate(env.agents)}
        )
        shaped = jnp.stack([jnp.asarray(info["shaped_reward"][a], jnp.float32) for a in env.agents])
        rec = (from_theirs(env, final), stacked(env, obs), observe(final))
        # JaxMARL's step: an episode that ends restarts from reset_state (here: start).
        state = jax.tree.map(lambda s, f: jax.lax.select(done["__all__"], s, f), start, final)
        return state, (rec, reward[env.agents[0]], shaped, done["__all__"])

    # One compiled step, called step by step: much faster to compile than a vmapped scan.
    begin_fn = jax.jit(begin, compiler_options=OPTIONS)
    step_fn = jax.jit(step, compiler_options=OPTIONS)
    actions, keys = data["actions"], data["keys"]
    trajectories = []
    for b in range(actions.shape[0]):
        start, first = begin_fn({k: jnp.asarray(data[f"start_{k}"][b]) for k in FIELDS})
        state, recs, rest = start, [first], []
        for t in range(actions.shape[1]):
            state, (rec, *others) = step_fn(start, state, jnp.asarray(actions[b, t]), jnp.asarray(keys[b, t]))
            recs.append(rec)
            rest.append(others)
        trajectories.append((recs, rest))
    (fields, obs, variant_obs), (reward, shaped, done) = jax.tree.map(
        lambda *xs: np.stack(xs),
        *[
            (jax.tree.map(lambda *r: np.stack(r), *recs), jax.tree.map(lambda *r: np.stack(r), *rest))
            for recs, rest in jax.device_get(trajectories)
        ],
    )
    out = {k: np.asarray(v) for k, v in fields.items()}
    out["obs"] = compact(np.asarray(obs))
    for j, per_agent in enumerate(variant_obs):
        out.update({f"obs_{j}_{i}": compact(np.asarray(o)) for i, o in enumerate(per_agent)})
    out.update(reward=np.asarray(reward, np.float32), shaped=np.asarray(shaped), done=np.asarray(done))
    return out


def main(folder: str) -> None:
    root = Path(folder)
    jobs = json.loads((root / "jobs.json").read_text())
    for spec in jobs:
        t0 = time.process_time()
        with np.load(root / f"{spec['name']}_in.npz") as f:
            data = {k: f[k] for k in f.files}
        out = run_reset(spec, data) if spec["kind"] == "reset" else run_dynamics(spec, data)
        out["seconds"] = np.float64(time.process_time() - t0)
        np.savez(root / f"{spec['name']}_out.tmp.npz", **out)
        (root / f"{spec['name']}_out.tmp.npz").rename(root / f"{spec['name']}_out.npz")


if __name__ == "__main__":
    main(sys.argv[1])
