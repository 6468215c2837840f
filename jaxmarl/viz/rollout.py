"""Rollouts to frames to GIF: visualise any environment that implements ``render``.

``size`` (``render_states``, ``animate``) is passed to ``env.render(state, size=...)``:
the length in pixels of each frame's longer side (exact for continuous worlds; grid,
tile and table renderers use whole pixels per cell, so their frames may be a few pixels
smaller). ``None`` keeps the environment's default.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from jaxmarl.environments.multi_agent_env import random_actions
from jaxmarl.viz.raster import check_size

Policy = Callable[[jax.Array, dict[str, jax.Array], Any], dict[str, jax.Array]]


def random_policy(env: Any) -> Policy:
    """A policy taking uniformly random legal actions: ``policy(key, obs, state)``."""

    def policy(key: jax.Array, obs: dict[str, jax.Array], state: Any) -> dict[str, jax.Array]:
        del obs
        return random_actions(env, key, state)

    return policy


def rollout(env: Any, key: jax.Array, num_steps: int, policy: Policy | None = None) -> Any:
    """Run one environment for ``num_steps`` steps (resetting automatically).

    Args:
        env: the environment.
        key: PRNG key.
        num_steps: number of steps.
        policy: ``policy(key, obs, state) -> actions``; random legal actions by default.

    Returns:
        The ``num_steps + 1`` states visited, stacked along a leading axis.

    Raises:
        ValueError: when ``num_steps`` is not a positive int.
    """
    if isinstance(num_steps, bool) or not isinstance(num_steps, int) or num_steps < 1:
        raise ValueError(f"num_steps must be a positive int, got {num_steps!r}")
    policy = random_policy(env) if policy is None else policy
    key, key_reset = jax.random.split(key)
    obs, state = env.reset(key_reset)

    def body(carry: tuple[Any, Any], key: jax.Array) -> tuple[tuple[Any, Any], Any]:
        obs, state = carry
        key_act, key_step = jax.random.split(key)
        actions = policy(key_act, obs, state)
        obs, new_state, _, _, _ = env.step(key_step, state, actions)
        return (obs, new_state), new_state

    run = jax.jit(lambda k: jax.lax.scan(body, (obs, state), jax.random.split(k, num_steps))[1])
    states = run(key)
    return jax.tree.map(lambda first, rest: jnp.concatenate([first[None], rest]), state, states)


def render_states(env: Any, states: Any, size: int | None = None, **render_kwargs: Any) -> np.ndarray:
    """Render stacked states into frames, ``uint8`` of shape ``(T, H, W, 3)``.

    Args:
        env: the environment.
        states: states stacked along a leading axis of length ``T`` (as ``rollout``
            returns them).
        size: the frames' longer side in pixels, ``max(H, W)`` (grid renderers may come
            out a few pixels smaller); ``None`` for the environment's default. A
            ``ValueError`` unless a positive int.
        **render_kwargs: other keyword arguments of ``env.render`` (Hanabi: ``player``).
    """
    if size is not None:
        render_kwargs["size"] = check_size(size)
    frames = jax.jit(jax.vmap(lambda s: env.render(s, **render_kwargs)))(states)
    return np.asarray(frames)


def save_gif(frames: np.ndarray | Sequence[np.ndarray], path: str | Path, fps: int = 10) -> Path:
    """Write ``uint8`` RGB frames ``(T, H, W, 3)`` to an animated GIF at ``path``."""
    try:
        from PIL import Image
    except ImportError as err:  # pragma: no cover - pillow is a dependency
        raise ImportError("Writing GIFs needs Pillow: pip install pillow") from err
    arrays = [np.asarray(f, dtype=np.uint8) for f in frames]
    if not arrays:
        raise ValueError("save_gif needs at least one frame")
    images = [Image.fromarray(a) for a in arrays]
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0)
    return path


def animate(
    env: Any,
    key: jax.Array,
    path: str | Path,
    num_steps: int = 50,
    policy: Policy | None = None,
    fps: int = 10,
    size: int | None = None,
) -> Path:
    """Roll out ``env`` with ``policy`` (random by default) and save the frames as a GIF.

    ``size`` is the frames' longer side in pixels (see ``render_states``; ``None``: the
    environment's default). Returns the GIF's path.
    """
    if size is not None:
        check_size(size)
    states = rollout(env, key, num_steps, policy)
    return save_gif(render_states(env, states, size=size), path, fps=fps)
