"""State of a MultiCVRP episode (Jumanji's ``State``, flattened into one dataclass)."""

from typing import TYPE_CHECKING, Any

import jax
from flax import struct


@struct.dataclass
class State:
    """The instance and where the vehicles are. ``N = num_customers + 1`` nodes (node 0 the
    depot), ``V = num_vehicles`` vehicles (vehicle ``i`` is ``agent_i``), ``C =
    num_customers``.

    Attributes:
        coordinates: the nodes' ``(x, y)`` on the map, float32 ``(N, 2)``.
        demands: what each node still wants, int32 ``(N,)``; 0 once served (and at the depot).
        window_start: start of each node's time window, float32 ``(N,)``.
        window_end: end of each node's time window, float32 ``(N,)``.
        early_coefs: penalty per unit of time for arriving before ``window_start``,
            float32 ``(N,)`` (0 at the depot).
        late_coefs: penalty per unit of time for arriving after ``window_end``, float32
            ``(N,)`` (0 at the depot).
        positions: the node each vehicle is at, int32 ``(V,)``.
        local_times: each vehicle's clock (the distance it has driven), float32 ``(V,)``.
        capacities: what each vehicle can still load, int32 ``(V,)``.
        distances: the distance each vehicle has driven, float32 ``(V,)``.
        time_penalties: each vehicle's summed early/late penalties, float32 ``(V,)``.
        routes: ``routes[i, t]`` is the node vehicle ``i`` stood on after ``t`` steps, int32
            ``(V, 2 * C + 1)`` (Jumanji's ``order``, one column longer so the last step
            fits); columns past ``step`` are 0.
        step: steps taken in the episode, int32 ``()`` (Jumanji's ``step_count`` minus 1).
    """

    coordinates: jax.Array
    demands: jax.Array
    window_start: jax.Array
    window_end: jax.Array
    early_coefs: jax.Array
    late_coefs: jax.Array
    positions: jax.Array
    local_times: jax.Array
    capacities: jax.Array
    distances: jax.Array
    time_penalties: jax.Array
    routes: jax.Array
    step: jax.Array

    if TYPE_CHECKING:  # provided by flax.struct at runtime

        def replace(self, **changes: Any) -> "State": ...
