"""Render the picture at the top of each environment family's docs page.

One representative state per family (a few random legal steps after a seeded reset),
drawn with ``env.render(state, size=SIZE)`` and written as an optimised PNG to
``docs/img/environments/<family>.png``.

    python scripts/render_docs_images.py            # every family
    python scripts/render_docs_images.py smax mpe   # some of them

MABrax needs the ``jaxmarl[brax]`` extra.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jax
import numpy as np
from PIL import Image

import jaxmarl
from jaxmarl.environments.smax import map_name_to_scenario
from jaxmarl.viz import rollout

SIZE = 400
OUT_DIR = Path(__file__).resolve().parents[1] / "docs" / "img" / "environments"


@dataclass(frozen=True)
class Shot:
    """One picture: ``env_id`` (built with ``kwargs``) after ``steps`` random steps from
    ``PRNGKey(seed)``, as ``jaxmarl.viz.rollout`` plays them."""

    env_id: str
    steps: int
    seed: int = 0
    kwargs: dict[str, Any] = field(default_factory=dict)


SHOTS: dict[str, Shot] = {
    "mpe": Shot("MPE_simple_tag_v3", steps=12),
    "switch_riddle": Shot("switch_riddle", steps=4, seed=1),
    "coin_game": Shot("coin_game", steps=3),
    "storm": Shot("storm_2p", steps=60, seed=3),
    "hanabi": Shot("hanabi", steps=12),
    "smax": Shot("HeuristicEnemySMAX", steps=40, kwargs={"scenario": map_name_to_scenario("2s3z")}),
    "overcooked": Shot("overcooked", steps=30, kwargs={"layout": "cramped_room"}),
    "overcooked_v2": Shot(
        "overcooked_v2", steps=40, seed=1, kwargs={"layout": "grounded_coord_simple", "random_reset": True}
    ),
    "jaxnav": Shot("jaxnav", steps=25, seed=2, kwargs={"num_agents": 4}),
    "mabrax": Shot("ant_4x2", steps=15),
    "camar": Shot("camar_random_grid_v0", steps=1, seed=2, kwargs={"num_agents": 8, "obstacle_density": 0.3}),
    "nmmo": Shot("nmmo_v0", steps=10, kwargs={"preset": "small"}),
}


def render_shot(shot: Shot, size: int = SIZE) -> np.ndarray:
    """The frame of ``shot``: uint8 ``(H, W, 3)`` with ``max(H, W) <= size``."""
    env = jaxmarl.make(shot.env_id, **shot.kwargs)
    states = rollout(env, jax.random.PRNGKey(shot.seed), num_steps=shot.steps)
    last = jax.tree.map(lambda x: x[-1], states)
    return np.asarray(jax.jit(lambda s: env.render(s, size=size))(last))


def save_png(frame: np.ndarray, path: Path) -> int:
    """Write ``frame`` as an optimised PNG (a 256-colour palette when that loses nothing
    visible, i.e. the frame has at most 256 colours); returns the file's size in bytes."""
    image = Image.fromarray(frame)
    if len(np.unique(frame.reshape(-1, 3), axis=0)) <= 256:
        image = image.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
    path.parent.mkdir(parents=True, exist_ok=True)
    image.save(path, optimize=True)
    return path.stat().st_size


def camar_planner_gif(path: Path, size: int = 240, steps: int = 90) -> int:
    """An RRT*+PD episode on a 12 x 12 random grid (8 agents strong enough to arrive
    within ``steps``) as a GIF; returns its size in bytes."""
    from jaxmarl.environments.camar.planning import PlannerConfig, follow, plan
    from jaxmarl.viz import render_states, save_gif

    env = jaxmarl.make(
        "camar_random_grid_v0",
        num_agents=8,
        num_rows=12,
        num_cols=12,
        obstacle_density=0.2,
        max_steps=steps,
        dynamic_kwargs={"accel": 20.0},
        goal_rad_range=(0.06, 0.06),
    )

    def episode(key: jax.Array) -> Any:
        _, state = env.reset(key)
        paths = plan(env, key, state, PlannerConfig(num_iters=800))

        def body(state: Any, k: jax.Array) -> tuple[Any, Any]:
            u = follow(env, state, paths)
            _, new, _, _, _ = env.step_env(k, state, {a: u[i] for i, a in enumerate(env.agents)})
            return new, new

        _, states = jax.lax.scan(body, state, jax.random.split(key, steps - 1))
        return jax.tree.map(lambda first, rest: jax.numpy.concatenate([first[None], rest]), state, states)

    states = jax.jit(episode)(jax.random.PRNGKey(4))
    frames = render_states(env, jax.tree.map(lambda x: x[::3], states), size=size)
    save_gif(frames, path, fps=10)
    return path.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "families", nargs="*", help=f"families to render (default: all of {', '.join(SHOTS)})"
    )
    parser.add_argument("--size", type=int, default=SIZE, help=f"longer side in pixels (default {SIZE})")
    args = parser.parse_args()
    unknown = [f for f in args.families if f not in SHOTS]
    if unknown:
        parser.error(f"unknown family {', '.join(unknown)}; choose from {', '.join(SHOTS)}")
    for family in args.families or list(SHOTS):
        frame = render_shot(SHOTS[family], args.size)
        path = OUT_DIR / f"{family}.png"
        nbytes = save_png(frame, path)
        print(f"{path}: {frame.shape[1]} x {frame.shape[0]}, {nbytes / 1024:.1f} KB")
        if family == "camar":
            gif = OUT_DIR / "camar.gif"
            print(f"{gif}: {camar_planner_gif(gif) / 1024:.1f} KB")


if __name__ == "__main__":
    main()
