"""Overcooked: layouts and their validation, spaces, resets, the registry, rendering."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from fast_compile import COMPILER_OPTIONS

import jaxmarl
from jaxmarl.environments.overcooked import CLASSIC_LAYOUTS, LayoutError, Overcooked, parse_layout
from jaxmarl.environments.overcooked import constants as C
from jaxmarl.testing import check_env

# Sizes (width, height) and start cells of overcooked-ai 1.1.0's classic layouts.
CLASSIC = {
    "cramped_room": ((5, 4), [(1, 2), (3, 1)]),
    "asymmetric_advantages": ((9, 5), [(6, 2), (1, 3)]),
    "coordination_ring": ((5, 5), [(2, 1), (1, 2)]),
    "forced_coordination": ((5, 5), [(3, 1), (1, 2)]),
    "counter_circuit": ((8, 5), [(3, 3), (3, 1)]),
}


@pytest.mark.parametrize("name", list(CLASSIC))
def test_classic_layouts(name):
    layout = parse_layout(CLASSIC_LAYOUTS[name], name)
    (width, height), start = CLASSIC[name]
    assert (layout.width, layout.height) == (width, height)
    assert layout.start_pos.tolist() == [list(p) for p in start]
    for kind in (C.POT, C.SERVING, C.ONION_DISPENSER, C.DISH_DISPENSER):
        assert len(layout.cells(kind)) >= 1


def test_forced_coordination_keeps_cooks_apart():
    layout = parse_layout(CLASSIC_LAYOUTS["forced_coordination"])
    assert not (layout.regions[0] & layout.regions[1]).any()
    assert layout.regions[0].sum() == 3 and layout.regions[1].sum() == 3


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("XXPXX\nO1 2O\nX  X\nXDXSX", "ragged layout: row y=2 'X  X' has 4 characters but row y=0 has 5"),
        ("XXPXX\nO1 2O\nX Q X\nXDXSX", "unknown character 'Q' at (x=2, y=2)"),
        ("XXPXX\nO1 2O\nX T X\nXDXSX", "tomato dispenser 'T' at (x=2, y=2)"),
        ("XXPXX\nO1  O\nX   X\nXDXSX", "cook '2' is missing"),
        ("XXPXX\nO1 2O\nX 2 X\nXDXSX", "cook '2' appears 2 times, at (x=3, y=1), (x=2, y=2)"),
        ("XXPXX\nO1 2O\nX 3 X\nXDXSX", "cook '3' at (x=2, y=2): Overcooked has exactly two cooks"),
        ("XXXXX\nO1 2O\nX   X\nXDXSX", "no pot ('P')"),
        ("XXPXX\nO1 2O\nX   X\nXDXXX", "no serving counter ('S')"),
        ("XXPXX\nX1 2X\nX   X\nXDXSX", "no onion dispenser ('O')"),
        ("XXPXX\nO1 2O\nX   X\nXXXSX", "no dish dispenser ('D')"),
        ("XX XX\nO1 2P\nX   X\nXDXSX", "floor ' ' at (x=2, y=0) is on the border"),
        ("XXPXX\nO  2O\nX   X\nXD1SX", "cook '1' at (x=2, y=3) is on the border"),
        (
            "XXPXX\nO1 2O\n    X\nXDXSX",
            "row y=2 'X' has 1 characters but row y=0 has 5 (leading and trailing",
        ),
        ("", "the layout is empty"),
        ("cramped_rom", "unknown Overcooked layout 'cramped_rom'. Did you mean 'cramped_room'?"),
    ],
)
def test_malformed_layouts_are_rejected_with_position(text, message):
    with pytest.raises(LayoutError) as err:
        Overcooked(layout=text)
    assert message in str(err.value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"cooking": "manual"}, "cooking must be one of ('auto', 'interact')"),
        ({"max_steps": 0}, "max_steps must be an integer >= 1"),
        ({"random_reset": 1}, "random_reset must be True or False"),
    ],
)
def test_bad_keywords(kwargs, message):
    with pytest.raises(ValueError, match=None) as err:
        jaxmarl.make("overcooked", **kwargs)
    assert message in str(err.value)


def test_ascii_layout_and_spaces():
    env = jaxmarl.make("overcooked", layout="\n  XXPXX\n  O1 2X\n  XDXSX\n")
    assert env.agents == ["agent_0", "agent_1"] and env.max_steps == 400
    space = env.observation_space("agent_0")
    assert space.shape == (3, 5, 26) and space.dtype == jnp.uint8
    assert env.action_space("agent_1").n == 6
    # Exact bounds: terrain channels are fixed, cooks only on floor, pot contents on pots.
    assert space.low[0, 2, C.CH_POT] == space.high[0, 2, C.CH_POT] == 1
    assert space.high[1, 1, C.CH_SELF_POS] == 1 and space.high[0, 2, C.CH_SELF_POS] == 0
    assert space.high[0, 2, C.CH_ONIONS_IN_POT] == 3 and space.high[1, 1, C.CH_ONIONS_IN_POT] == 0
    assert space.high[0, 2, C.CH_COOK_TIME_LEFT] == 20 and space.high[..., C.CH_TOMATOES].max() == 0


def test_resets():
    standard = Overcooked(random_orientation=False)
    jaxmarl_style = Overcooked()
    random = Overcooked(random_reset=True, cooking="interact")
    keys = jax.random.split(jax.random.PRNGKey(0), 64)
    _, s0 = jax.vmap(standard.reset)(keys)
    assert (np.asarray(s0.dir) == C.NORTH).all() and (np.asarray(s0.pos) == [[1, 2], [3, 1]]).all()
    _, s1 = jax.vmap(jaxmarl_style.reset)(keys)
    assert len(np.unique(np.asarray(s1.dir))) == 4 and (np.asarray(s1.pos) == [[1, 2], [3, 1]]).all()
    _, s2 = jax.vmap(random.reset)(keys)
    floor = standard.layout.terrain == C.FLOOR
    pos = np.asarray(s2.pos)
    assert floor[pos[..., 1], pos[..., 0]].all() and (pos[:, 0] != pos[:, 1]).any(-1).all()
    assert set(np.unique(np.asarray(s2.held))) == {0, 1, 2, 3}
    assert (np.asarray(s2.items)[:, ~(standard.layout.terrain == C.COUNTER)] == 0).all()


@pytest.mark.parametrize(
    "name", ["asymmetric_advantages", "coordination_ring", "forced_coordination", "counter_circuit"]
)
def test_classic_layouts_pass_check_env(name):
    check_env(
        jaxmarl.make("overcooked", layout=name, max_steps=12),
        num_envs=2,
        check_render=False,
        compiler_options=COMPILER_OPTIONS,
    )


def test_random_reset_interact_rule_passes_check_env():
    env = jaxmarl.make(
        "overcooked", layout="forced_coordination", random_reset=True, cooking="interact", max_steps=20
    )
    check_env(env, num_envs=4, compiler_options=COMPILER_OPTIONS)


def test_render_draws_the_kitchen():
    env = Overcooked(layout="cramped_room", random_reset=True)
    _, state = env.reset(jax.random.PRNGKey(3))
    frame = np.asarray(jax.jit(env.render)(state))
    assert frame.shape == (4 * 32, 5 * 32, 3) and frame.dtype == np.uint8
    # Cooks are drawn in their colours at the centre of their cells.
    for i, (x, y) in enumerate(np.asarray(state.pos)):
        centre = frame[y * 32 + 16 - 6, x * 32 + 16 - 6] / 255.0
        np.testing.assert_allclose(centre, C.AGENT_COLOURS[i], atol=0.01)
