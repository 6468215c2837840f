"""Drive overcooked-ai 1.1.0 (the original Overcooked) from given start states and actions.

Runs in its own process (overcooked-ai is slow, single-threaded Python, and sets global
recipe configuration), so the JAX side can compile and run meanwhile::

    python tests/oracles/overcooked_oracle.py IN.npz OUT.npz

``IN.npz`` holds, for one layout, ``layout`` (a classic layout's name), ``rule``
(``"interact"``: overcooked-ai's own rules; ``"auto"``: the same, but a pot starts
cooking when its third onion goes in, and an empty-handed interact starts nothing),
``horizon`` (for the urgency channel) and a batch of trajectories: start states in our
``State`` fields (``pos``, ``dir``, ``held``, ``held_onions``, ``items``, ``onions``,
``cook_tick``, ``step``, each with a leading batch axis) and ``actions``
``(batch, steps, 2)`` in overcooked-ai's action indices. ``OUT.npz`` holds the same
fields for every step (``(batch, steps + 1, ...)``, the start included), recorded from
overcooked-ai's ``OvercookedState``, plus ``sparse`` and ``shaped`` ``(batch, steps, 2)``
(``sparse_reward_by_agent`` and ``shaped_reward_by_agent``) and ``obs``
``(batch, steps + 1, 2, height, width, 26)``, its ``lossless_state_encoding``
transposed to ``[y, x]``.

States go in through ``OvercookedState.from_dict`` and are stepped with
``OvercookedGridworld.get_state_transition``, as the overcooked-ai README describes.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import numpy as np

if not hasattr(np, "Inf"):  # overcooked-ai 1.1.0 uses np.Inf, removed in NumPy 2
    np.Inf = np.inf  # type: ignore[attr-defined]

from overcooked_ai_py.mdp.actions import Action, Direction
from overcooked_ai_py.mdp.overcooked_mdp import OvercookedGridworld, OvercookedState

# Our classic layouts by overcooked-ai's names (the 2019 paper's counter circuit is
# 1.1.0's counter_circuit_o_1order; its counter_circuit has tomatoes).
ORACLE_LAYOUTS = {
    "cramped_room": "cramped_room",
    "asymmetric_advantages": "asymmetric_advantages",
    "coordination_ring": "coordination_ring",
    "forced_coordination": "forced_coordination",
    "counter_circuit": "counter_circuit_o_1order",
}
NOTHING, ONION, DISH, SOUP = 0, 1, 2, 3
ITEM_NAMES = {ONION: "onion", DISH: "dish", SOUP: "soup"}
ITEM_CODES = {"onion": ONION, "dish": DISH, "soup": SOUP}
FIELDS = ("pos", "dir", "held", "held_onions", "items", "onions", "cook_tick", "step")


def make_mdp(layout: str) -> OvercookedGridworld:
    return OvercookedGridworld.from_layout_name(ORACLE_LAYOUTS[layout])


def _object(kind: int, onions: int, position: tuple[int, int], tick: int) -> dict[str, Any]:
    if kind != SOUP:
        return {"name": ITEM_NAMES[kind], "position": position}
    onion = {"name": "onion", "position": position}
    return {"name": "soup", "position": position, "_ingredients": [onion] * onions, "cooking_tick": tick}


def state_dict(mdp: OvercookedGridworld, start: dict[str, np.ndarray]) -> dict[str, Any]:
    """overcooked-ai's state dict of one of our states (numpy fields, no batch axis)."""
    players = []
    for i in range(2):
        pos = (int(start["pos"][i, 0]), int(start["pos"][i, 1]))
        held = int(start["held"][i])
        players.append(
            {
                "position": pos,
                "orientation": Direction.INDEX_TO_DIRECTION[int(start["dir"][i])],
                "held_object": None
                if held == NOTHING
                else _object(held, int(start["held_onions"][i]), pos, 20),
            }
        )
    objects = []
    pots = set(mdp.get_pot_locations())
    height, width = start["items"].shape
    for y in range(height):
        for x in range(width):
            onions, tick = int(start["onions"][y, x]), int(start["cook_tick"][y, x])
            if (x, y) in pots:
                if onions:
                    objects.append(_object(SOUP, onions, (x, y), tick))
            elif start["items"][y, x]:
                objects.append(_object(int(start["items"][y, x]), onions, (x, y), 20))
    orders = [{"ingredients": ["onion", "onion", "onion"]}]
    return {
        "players": players,
        "objects": objects,
        "bonus_orders": [],
        "all_orders": orders,
        "timestep": int(start["step"]),
    }


def record(mdp: OvercookedGridworld, state: OvercookedState) -> dict[str, np.ndarray]:
    """Our ``State`` fields of an overcooked-ai state."""
    width, height = mdp.shape
    out = {
        "pos": np.array([p.position for p in state.players], np.int32),
        "dir": np.array([Direction.DIRECTION_TO_INDEX[p.orientation] for p in state.players], np.int32),
        "held": np.zeros(2, np.int32),
        "held_onions": np.zeros(2, np.int32),
        "items": np.zeros((height, width), np.int32),
        "onions": np.zeros((height, width), np.int32),
        "cook_tick": np.full((height, width), -1, np.int32),
        "step": np.int32(state.timestep),
    }
    for i, p in enumerate(state.players):
        if p.held_object is not None:
            out["held"][i] = ITEM_CODES[p.held_object.name]
            if p.held_object.name == "soup":
                out["held_onions"][i] = len(p.held_object.ingredients)
    pots = set(mdp.get_pot_locations())
    for (x, y), obj in state.objects.items():
        if (x, y) in pots:
            out["onions"][y, x] = len(obj.ingredients)
            out["cook_tick"][y, x] = obj._cooking_tick
        else:
            out["items"][y, x] = ITEM_CODES[obj.name]
            if obj.name == "soup":
                out["onions"][y, x] = len(obj.ingredients)
    return out


def _auto_cook(mdp: OvercookedGridworld, state: OvercookedState) -> None:
    """The automatic rule's cooking start, applied after a 1.1.0 transition: a pot whose
    third onion went in this step starts cooking and cooks once (tick 1), as it would
    have had it started during the interactions."""
    for pos in mdp.get_pot_locations():
        if state.has_object(pos):
            soup = state.get_object(pos)
            if soup.is_idle and len(soup.ingredients) == 3:
                soup.begin_cooking()
                soup.cook()


def run(
    layout: str, rule: str, horizon: int, starts: dict[str, np.ndarray], actions: np.ndarray
) -> dict[str, np.ndarray]:
    """Play every trajectory in overcooked-ai; see the module docstring for the arrays."""
    mdp = make_mdp(layout)
    if rule == "auto":  # no empty-handed cooking start under the automatic rule
        mdp.soup_to_be_cooked_at_location = lambda state, pos: False
    elif rule != "interact":
        raise ValueError(f"unknown rule {rule!r}")
    batch, steps = actions.shape[:2]
    moves = Action.INDEX_TO_ACTION
    out: dict[str, list] = {k: [] for k in (*FIELDS, "sparse", "shaped", "obs")}
    for b in range(batch):
        state = OvercookedState.from_dict(state_dict(mdp, {k: starts[k][b] for k in FIELDS}))
        recs, sparse, shaped, obs = [record(mdp, state)], [], [], []
        obs.append(mdp.lossless_state_encoding(state, horizon=horizon))
        for t in range(steps):
            joint = (moves[int(actions[b, t, 0])], moves[int(actions[b, t, 1])])
            state, info = mdp.get_state_transition(state, joint)
            if rule == "auto":
                _auto_cook(mdp, state)
            recs.append(record(mdp, state))
            sparse.append(info["sparse_reward_by_agent"])
            shaped.append(info["shaped_reward_by_agent"])
            obs.append(mdp.lossless_state_encoding(state, horizon=horizon))
        for k in FIELDS:
            out[k].append(np.stack([r[k] for r in recs]))
        out["sparse"].append(np.asarray(sparse, np.float32))
        out["shaped"].append(np.asarray(shaped, np.float32))
        # (steps + 1, 2 agents, W, H, 26) -> (steps + 1, 2, H, W, 26)
        out["obs"].append(np.transpose(np.asarray(obs), (0, 1, 3, 2, 4)).astype(np.uint8))
    return {k: np.stack(v) for k, v in out.items()}


def main(argv: list[str]) -> None:
    src, dst = argv
    data = np.load(src)
    t0 = time.perf_counter()
    result = run(
        str(data["layout"]),
        str(data["rule"]),
        int(data["horizon"]),
        {k: data[k] for k in FIELDS},
        data["actions"],
    )
    result["seconds"] = np.float64(time.perf_counter() - t0)
    np.savez(dst, **result)


if __name__ == "__main__":
    main(sys.argv[1:])
