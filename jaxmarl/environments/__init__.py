"""The environment families, one sub-package each.

The environment classes are also importable from here under JaxMARL's names
(``from jaxmarl.environments import SimpleSpreadMPE, SMAX, Overcooked``). They are
imported when first used, so importing this package stays free of JAX work and of
optional dependencies (the MABrax classes need Brax).
"""

from __future__ import annotations

import importlib
import importlib.util
from typing import Any

# name -> the family package that provides it
_EXPORTS = {
    **dict.fromkeys(
        [
            "SimpleMPE",
            "SimpleTagMPE",
            "SimpleWorldCommMPE",
            "SimpleSpreadMPE",
            "SimpleCryptoMPE",
            "SimpleSpeakerListenerMPE",
            "SimplePushMPE",
            "SimpleAdversaryMPE",
            "SimpleReferenceMPE",
            "SimpleFacmacMPE",
            "SimpleFacmacMPE3a",
            "SimpleFacmacMPE6a",
            "SimpleFacmacMPE9a",
        ],
        "mpe",
    ),
    **dict.fromkeys(["SMAX", "HeuristicEnemySMAX", "LearnedPolicyEnemySMAX"], "smax"),
    **dict.fromkeys(["InTheGrid", "InTheGrid_2p", "InTheMatrix"], "storm"),
    **dict.fromkeys(["Ant", "HalfCheetah", "Hopper", "Humanoid", "Walker2d"], "mabrax"),
    **dict.fromkeys(["Overcooked", "overcooked_layouts"], "overcooked"),
    **dict.fromkeys(["OvercookedV2", "overcooked_v2_layouts"], "overcooked_v2"),
    "CoinGame": "coin_game",
    "Hanabi": "hanabi",
    "JaxNav": "jaxnav",
    "SwitchRiddle": "switch_riddle",
    "MultiAgentEnv": "multi_agent_env",
    "State": "multi_agent_env",
}

__all__ = sorted([*_EXPORTS, "MABRAX_AVAILABLE"])


def __getattr__(name: str) -> Any:
    if name == "MABRAX_AVAILABLE":
        # JaxMARL's flag: whether the MABrax environments can be made (Brax installed).
        return importlib.util.find_spec("brax") is not None
    if name in _EXPORTS:
        module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(module, name)
    # The family packages are imported when first used (jaxmarl.environments.jumanji.lbf).
    if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}") is not None:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
