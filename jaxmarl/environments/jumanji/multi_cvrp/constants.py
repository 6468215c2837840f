"""Constants of MultiCVRP: the depot's index, the vehicles' speed, the paper's instance
settings (Zhang et al. 2020, as Jumanji 1.1.2 tabulates them), the custom generators'
defaults and the colours of the renderer."""

from __future__ import annotations

DEPOT = 0  # node 0 is the depot, nodes 1..num_customers the customers
SPEED = 1.0  # map units per unit of time: travel time equals distance

# Jumanji's defaults for MultiCVRP-v0.
NUM_CUSTOMERS = 20
NUM_VEHICLES = 2

# Every time window lasts this long (Jumanji: the paper's 150-customer value, used for all sizes).
TIME_WINDOW_LENGTH = 20.0


def _row(
    map_max: int, max_capacity: int, max_start_window: float, customer_demand_max: int, coefs: str = "random"
) -> dict:
    early, late = ((0.0, 0.2), (0.0, 1.0)) if coefs == "random" else ((0.1, 0.1), (0.5, 0.5))
    return {
        "map_max": map_max,
        "max_capacity": max_capacity,
        "max_start_window": max_start_window,
        "early_coef_rand": early,
        "late_coef_rand": late,
        "customer_demand_max": customer_demand_max,
        "time_window_length": TIME_WINDOW_LENGTH,
    }


# (num_customers, num_vehicles) -> the paper's settings (Jumanji's ``get_init_settings``).
PAPER_SETTINGS: dict[tuple[int, int], dict] = {
    (6, 2): _row(10, 20, 10.0, 10),
    (6, 3): _row(10, 20, 10.0, 20),
    (20, 2): _row(10, 60, 10.0, 10),
    (20, 3): _row(10, 60, 10.0, 15),
    **{(50, v): _row(20, 150, 20.0, d) for v, d in ((2, 10), (3, 15), (4, 20), (5, 25))},
    **{(100, v): _row(20, 300, 40.0, d) for v, d in ((2, 10), (3, 15), (4, 20), (5, 25))},
    (150, 5): _row(20, 180, 60.0, 10, coefs="fixed"),
}

# The base class of Jumanji's generators: its defaults for ``manual_settings=True``.
MANUAL_DEFAULTS: dict = {
    "map_max": 10,
    "max_capacity": 60,
    "max_start_window": 10.0,
    "early_coef_rand": (0.0, 0.2),
    "late_coef_rand": (0.0, 1.0),
    "customer_demand_max": 10,
    "time_window_length": TIME_WINDOW_LENGTH,
}

# Custom generators' defaults, as fractions of ``map_max``.
CLUSTER_RADIUS = 0.2
EXPLOSION_RADIUS = 0.3
COMPRESSION = 0.9

# Renderer (RGB in [0, 1]).
BACKGROUND = (0.95, 0.95, 0.92)
NODE_COLOUR = (0.0, 0.0, 0.0)
MARGIN = 0.04  # blank border around the map, as a fraction of map_max
