"""CAMAR integrators: what ``integrator="rk4"`` costs and buys against camar's Euler.

Every setting simulates the same physics (the holonomic model with camar's defaults:
``accel=5``, ``mass=1``, a damping rate of 25 per unit time, i.e. ``damping = 25 * dt``)
for the same time per env step, ``dt * (frameskip + 1)``, on random_grid 20x20 (obstacle
density 0.3, 8 agents). Agents push straight at their goals (a closed-loop policy that
drives them into walls and each other). The reference is RK4 with ``dt = 0.001``.

For each setting: the contact force evaluations per env step, the mean distance of the
agents from the reference after 10 and 100 env steps (``err@10``, ``err@100``), the
deepest overlap of an agent with an obstacle over the episode (``overlap``, in units of
the agent radius; the reference's is the floor), and env steps per second at ``N``
parallel envs.

    python benchmarks/camar_integrators.py --num-envs 256 --episodes 64
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
import numpy as np

import jaxmarl

RATE = 25.0  # camar's damping 0.25 per dt = 0.01
MAP = {"num_agents": 8, "num_rows": 20, "num_cols": 20, "obstacle_density": 0.3}


def make_env(integrator: str, dt: float, frameskip: int):
    return jaxmarl.make(
        "camar_random_grid_v0",
        integrator=integrator,
        frameskip=frameskip,
        max_steps=100,
        dynamic_kwargs={"dt": dt, "damping": RATE * dt},
        **MAP,
    )


def policy(state) -> jax.Array:
    to_goal = state.goal_pos - state.pos
    return to_goal / jnp.maximum(jnp.linalg.norm(to_goal, axis=-1, keepdims=True), 1e-6)


def rollout(env, key: jax.Array, steps: int):
    """Positions ``(steps, N, 2)`` and deepest obstacle overlap over ``steps`` env steps."""
    _, state = env.reset(key)

    def body(state, _):
        u = policy(state)
        actions = {a: u[i] for i, a in enumerate(env.agents)}
        _, state, *_ = env.step_env(key, state, actions)
        gap = jnp.linalg.norm(state.pos[:, None] - state.landmark_pos[None], axis=-1)
        overlap = (state.agent_rad[:, None] + env.map.landmark_rad - gap) / state.agent_rad[:, None]
        return state, (state.pos, jnp.max(overlap))

    _, (pos, overlap) = jax.lax.scan(body, state, None, steps)
    return pos, jnp.max(overlap)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--episodes", type=int, default=64, help="episodes compared with the reference")
    parser.add_argument("--num-envs", type=int, default=256, help="parallel envs for the speed column")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    keys = jax.random.split(jax.random.PRNGKey(0), args.episodes)
    settings = {
        # step time 0.03, camar's default
        0.03: [
            ("euler", 0.01, 2),
            ("euler", 0.005, 5),
            ("euler", 0.03, 0),
            ("rk4", 0.03, 0),
            ("rk4", 0.015, 1),
        ],
        # step time 0.1, the paper's example (section "Limitations")
        0.1: [
            ("euler", 0.005, 19),
            ("euler", 0.01, 9),
            ("euler", 0.025, 3),
            ("rk4", 0.05, 1),
            ("rk4", 0.1, 0),
        ],
    }
    rows = []
    for step_time, cases in settings.items():
        ref_env = make_env("rk4", 0.001, round(step_time / 0.001) - 1)
        ref, ref_overlap = jax.jit(jax.vmap(lambda k, e=ref_env: rollout(e, k, 100)))(keys)
        rows.append(
            (
                step_time,
                "rk4 (reference)",
                0.001,
                4 * round(step_time / 0.001),
                0.0,
                0.0,
                float(ref_overlap.max()),
                float("nan"),
            )
        )
        for integrator, dt, frameskip in cases:
            env = make_env(integrator, dt, frameskip)
            pos, overlap = jax.jit(jax.vmap(lambda k, e=env: rollout(e, k, 100)))(keys)
            err = jnp.linalg.norm(pos - ref, axis=-1).mean(axis=(0, 2))
            run = jax.jit(jax.vmap(lambda k, e=env: rollout(e, k, 100)))
            batch = jax.random.split(jax.random.PRNGKey(1), args.num_envs)
            jax.block_until_ready(run(batch))
            times = []
            for _ in range(args.repeats):
                t = time.perf_counter()
                jax.block_until_ready(run(batch))
                times.append(time.perf_counter() - t)
            sps = args.num_envs * 100 / min(times)
            evals = (4 if integrator == "rk4" else 1) * (frameskip + 1)
            rows.append(
                (step_time, integrator, dt, evals, float(err[9]), float(err[99]), float(overlap.max()), sps)
            )
    print(f"{jax.devices()[0].platform}, {args.episodes} episodes, speed at N={args.num_envs}\n")
    print("| step time | integrator | dt | force evals / step | err@10 | err@100 | overlap | steps/s |")
    print("| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    for step_time, name, dt, evals, e10, e100, ov, sps in rows:
        speed = "" if np.isnan(sps) else f"{sps:,.0f}"
        print(f"| {step_time} | {name} | {dt} | {evals} | {e10:.2e} | {e100:.2e} | {ov:.2f} | {speed} |")


if __name__ == "__main__":
    main()
