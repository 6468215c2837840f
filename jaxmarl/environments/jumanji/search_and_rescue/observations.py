"""The searchers' ray-cast views (Jumanji's ``AgentAndTargetObservationFn``).

An observation function is any object with ``num_channels``, ``num_vision`` and
``view_angle`` attributes (the env reads ``view_angle`` for its detection cone too) and
``__call__(state) -> views``, float32 ``(num_searchers, num_channels, num_vision)`` with
entries in ``[-1, 1]``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from jaxmarl.environments.jumanji.search_and_rescue import constants as C
from jaxmarl.environments.jumanji.search_and_rescue.geometry import angular_width, in_range, ray_angles
from jaxmarl.environments.jumanji.search_and_rescue.types import State

__all__ = ["AgentAndTargetObservationFn", "nearest_along_rays"]


def _check_positive(name: str, value: object, upper: float | None = None) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"SearchAndRescue: {name} must be a positive number, got {value!r}")
    if upper is not None and value > upper:
        raise ValueError(f"SearchAndRescue: {name} must be at most {upper}, got {value!r}")
    return float(value)


def nearest_along_rays(hits: jax.Array, dist: jax.Array) -> jax.Array:
    """Per ray the smallest distance among the entities it hits, -1 where it hits none.

    Args:
        hits: bool ``(..., entities, rays)``.
        dist: ``(..., entities)`` normalised distances (non-negative).

    Returns:
        float32 ``(..., rays)``.
    """
    nearest = jnp.min(jnp.where(hits, dist[..., None], jnp.inf), axis=-2)
    return jnp.where(jnp.isinf(nearest), -1.0, nearest)


class AgentAndTargetObservationFn:
    """Each searcher's view of the other searchers, the found and the unfound targets.

    A searcher casts ``num_vision`` rays evenly over ``[-view_angle * pi, view_angle *
    pi]`` around its heading. Every other searcher within ``searcher_vision_range`` and
    every target within ``target_vision_range`` (torus distance) is a disc of radius
    ``agent_radius``; a ray strictly between the disc's edge angles sees it at its
    distance divided by the range (so in ``[0, 1]``). Each ray of each channel keeps the
    nearest entity it sees, or -1 when it sees none. Channels: 0 other searchers, 1 found
    targets, 2 unfound targets.

    Args:
        num_vision: rays per view.
        searcher_vision_range: range at which other searchers are seen.
        target_vision_range: range at which targets are seen.
        view_angle: half-width of the view cone, a fraction of pi, in ``(0, 1]``.
        agent_radius: the visual radius of searchers and targets (the env's default is
            its ``target_contact_range``).
        env_size: side of the torus (the generator's ``env_size``).

    Raises:
        ValueError: for a non-positive count, range or radius, a range beyond
            ``env_size`` or a view angle outside ``(0, 1]``.
    """

    num_channels = C.NUM_CHANNELS

    def __init__(
        self,
        num_vision: int = C.NUM_VISION,
        searcher_vision_range: float = C.SEARCHER_VISION_RANGE,
        target_vision_range: float = C.TARGET_VISION_RANGE,
        view_angle: float = C.VIEW_ANGLE,
        agent_radius: float = C.TARGET_CONTACT_RANGE,
        env_size: float = C.ENV_SIZE,
    ) -> None:
        if isinstance(num_vision, bool) or not isinstance(num_vision, int) or num_vision < 1:
            raise ValueError(f"SearchAndRescue: num_vision must be an int >= 1, got {num_vision!r}")
        self.num_vision = num_vision
        self.env_size = _check_positive("env_size", env_size)
        self.searcher_vision_range = _check_positive(
            "searcher_vision_range", searcher_vision_range, upper=self.env_size
        )
        self.target_vision_range = _check_positive(
            "target_vision_range", target_vision_range, upper=self.env_size
        )
        self.view_angle = _check_positive("view_angle", view_angle, upper=1.0)
        self.agent_radius = _check_positive("agent_radius", agent_radius)

    def __repr__(self) -> str:
        return (
            f"AgentAndTargetObservationFn(num_vision={self.num_vision}, "
            f"searcher_vision_range={self.searcher_vision_range}, "
            f"target_vision_range={self.target_vision_range}, view_angle={self.view_angle}, "
            f"agent_radius={self.agent_radius}, env_size={self.env_size})"
        )

    def __call__(self, state: State) -> jax.Array:
        """The views, float32 ``(num_searchers, 3, num_vision)``."""
        searchers, targets = state.searchers, state.targets
        rays = ray_angles(self.view_angle, self.num_vision)
        num_searchers = searchers.pos.shape[0]

        def look(pos_b: jax.Array, i_range: float) -> tuple[jax.Array, jax.Array]:
            """(distance, hits[a, b, ray]) of every entity at ``pos_b`` from every searcher."""
            dist, left, right = angular_width(
                searchers.pos[:, None, :],
                searchers.heading[:, None],
                pos_b[None, :, :],
                i_range,
                self.agent_radius,
                self.env_size,
            )
            hits = (left[..., None] < rays) & (rays < right[..., None])
            return dist, hits & in_range(searchers.pos, pos_b, i_range, self.env_size)[..., None]

        dist_s, hits_s = look(searchers.pos, self.searcher_vision_range)
        hits_s = hits_s & ~jnp.eye(num_searchers, dtype=bool)[..., None]  # not itself
        dist_t, hits_t = look(targets.pos, self.target_vision_range)
        found = targets.found[None, :, None]
        return jnp.stack(
            [
                nearest_along_rays(hits_s, dist_s),
                nearest_along_rays(hits_t & found, dist_t),
                nearest_along_rays(hits_t & ~found, dist_t),
            ],
            axis=1,
        )
