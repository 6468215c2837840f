"""Switches for the test suite, read from the environment in this one place.

``JAXMARL_FULL_ORACLES=1`` runs the oracle comparisons (``tests/oracles``) on their full
samples (1000 mpe2 episodes per scenario and action type instead of 100 or 250, 1000
Hanabi games per player count instead of 200, 100 Overcooked trajectories of each kind
per layout instead of 4) rather than the default reduced ones, which are chosen to
still exercise every rule branch (the mpe2 and Hanabi tests assert that they do). See
"Running the full oracle comparison" in ``docs/getting-started.md``.
"""

from __future__ import annotations

import os

FULL_ORACLES = os.environ.get("JAXMARL_FULL_ORACLES", "").strip().lower() not in ("", "0", "false", "no")


def oracle_count(reduced: int, full: int, variable: str | None = None) -> int:
    """How many episodes (games, trajectories...) an oracle comparison plays: the
    integer in the environment variable ``variable`` if it is set, else ``full`` under
    ``JAXMARL_FULL_ORACLES=1``, else ``reduced``."""
    if variable and os.environ.get(variable, "").strip():
        return int(os.environ[variable])
    return max(full, reduced) if FULL_ORACLES else reduced
