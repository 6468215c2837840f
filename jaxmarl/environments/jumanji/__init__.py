"""Jumanji's multi-agent tasks (Bonnet et al. 2024) as multi-agent environments.

Jumanji exposes RobotWarehouse, Connector, Cleaner, MMST, MultiCVRP, LevelBasedForaging
and SearchAndRescue as single-agent environments taking a joint action. Here each robot,
wire head, cleaner, vehicle, forager or searcher is an agent of the dict API, with its
own observation, action mask and reward; the rules, instance sizes and ids are Jumanji
1.1.2's, and the oracle tests replay whole episodes against it.

One sub-package per task (``robot_warehouse``, ``connector``, ``cleaner``, ``mmst``,
``multi_cvrp``, ``lbf``, ``search_and_rescue``), each with its ``env.py``, ``types.py``,
``constants.py``, ``generator.py`` and ``viewer.py``. Instances come from a *generator*
passed to ``make``; :mod:`jaxmarl.environments.jumanji.common` states the protocol a
generator keeps, so users bring their own without subclassing anything.
"""

import importlib
import importlib.util
from typing import Any


def __getattr__(name: str) -> Any:
    # The task packages are imported when first used (jaxmarl.environments.jumanji.lbf).
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
