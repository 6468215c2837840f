"""RobotWarehouse (Jumanji 1.1.2's ``RobotWarehouse-v0``): robots fetch requested shelves
and bring them to the goals; each robot is an agent."""

from jaxmarl.environments.jumanji.robot_warehouse.env import RobotWarehouse
from jaxmarl.environments.jumanji.robot_warehouse.generator import (
    REQUIRED_ATTRIBUTES,
    RandomGenerator,
    warehouse_layout,
)
from jaxmarl.environments.jumanji.robot_warehouse.types import State

__all__ = ["REQUIRED_ATTRIBUTES", "RandomGenerator", "RobotWarehouse", "State", "warehouse_layout"]
