"""JaxMARL 0.2.0's ``default_params`` module: the MPE world's defaults under its names.

The values are those of :mod:`jaxmarl.environments.mpe.constants` (mpe2's, the same as
JaxMARL's). JaxMARL's colours (``AGENT_COLOUR``, ``ADVERSARY_COLOUR``, ``OBS_COLOUR``,
0-255 RGB) are not repeated here: our scenarios draw with mpe2's palette, RGB in
``[0, 1]`` (``constants.AGENT_COLOUR``, ``constants.ADVERSARY_COLOUR``,
``constants.LANDMARK_COLOUR``).
"""

from jaxmarl.environments.mpe.constants import (
    CONTACT_FORCE,
    CONTACT_MARGIN,
    CONTINUOUS_ACT,
    DAMPING,
    DISCRETE_ACT,
    DT,
    MAX_STEPS,
)

__all__ = ["CONTACT_FORCE", "CONTACT_MARGIN", "CONTINUOUS_ACT", "DAMPING", "DISCRETE_ACT", "DT", "MAX_STEPS"]
