"""Our environments seen through other libraries' APIs.

- :class:`PettingZooParallelEnv`: any jaxmarl environment as a PettingZoo
  ``ParallelEnv`` (NumPy in and out, agents leaving ``agents`` when they are done).
- :class:`GymnasiumVectorEnv`: every agent of ``num_envs`` copies of a homogeneous
  environment as one sub-environment of a Gymnasium ``VectorEnv``, for single-agent
  vectorised learners with parameter sharing.
- :func:`to_gymnasium_space`: our spaces as Gymnasium spaces.

PettingZoo and Gymnasium are optional (``pip install "jaxmarl[adapters]"``): this
package imports them only when an adapter is first used, so ``import jaxmarl.adapters``
works without them and building an adapter says what to install. ``docs/adapters.md``
describes the semantics.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jaxmarl.adapters.gymnasium_vector import GymnasiumVectorEnv
    from jaxmarl.adapters.pettingzoo_parallel import PettingZooParallelEnv
    from jaxmarl.adapters.spaces import to_gymnasium_space

__all__ = ["GymnasiumVectorEnv", "PettingZooParallelEnv", "to_gymnasium_space"]

_WHERE = {
    "GymnasiumVectorEnv": "jaxmarl.adapters.gymnasium_vector",
    "PettingZooParallelEnv": "jaxmarl.adapters.pettingzoo_parallel",
    "to_gymnasium_space": "jaxmarl.adapters.spaces",
}


def __getattr__(name: str) -> Any:
    """Import an adapter's module when the adapter is first looked up."""
    if name in _WHERE:
        return getattr(importlib.import_module(_WHERE[name]), name)
    raise AttributeError(f"module 'jaxmarl.adapters' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted([*globals(), *__all__])
