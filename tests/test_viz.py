"""jaxmarl.viz: rollouts become frames and GIFs; the MPE renderer draws what it should."""

import subprocess
import sys

import jax
import jax.numpy as jnp
import numpy as np
from PIL import Image

import jaxmarl
from jaxmarl.environments.mpe import State
from jaxmarl.viz import animate, render_states, rollout, save_gif


def gif_duration_ms(path):
    with Image.open(path) as gif:
        total = 0
        for i in range(gif.n_frames):
            gif.seek(i)
            total += gif.info["duration"]
    return total


def test_rollout_stacks_states_and_renders_frames():
    env = jaxmarl.make("MPE_simple_tag_v3")
    states = rollout(env, jax.random.PRNGKey(0), num_steps=6)
    assert states.p_pos.shape == (7, 6, 2)
    np.testing.assert_array_equal(states.step, np.arange(7))
    frames = render_states(env, states, size=64)
    assert frames.shape == (7, 64, 64, 3) and frames.dtype == np.uint8
    assert not np.array_equal(frames[0], frames[-1])  # things moved


def test_mpe_render_draws_entities_in_their_colours():
    env = jaxmarl.make("MPE_simple_v3")
    # Agent (grey) left of centre, landmark (red) right of centre, 0.05 radius each.
    state = State(
        p_pos=jnp.array([[-0.5, 0.0], [0.5, 0.0]]),
        p_vel=jnp.zeros((2, 2)),
        c=jnp.zeros((1, 0)),
        step=jnp.int32(0),
        goal=jnp.zeros((0,), jnp.int32),
    )
    img = np.asarray(env.render(state, size=200))
    assert img.shape == (200, 200, 3) and img.dtype == np.uint8
    np.testing.assert_array_equal(img[100, 100], [255, 255, 255])  # background at the centre
    left, right = img[100, 100 - 48], img[100, 100 + 48]
    np.testing.assert_allclose(left, [64, 64, 64], atol=2)  # agent colour 0.25
    np.testing.assert_allclose(right, [191, 64, 64], atol=2)  # landmark colour (0.75, 0.25, 0.25)


def test_render_is_vmappable():
    env = jaxmarl.make("MPE_simple_spread_v3")
    _, states = jax.vmap(env.reset)(jax.random.split(jax.random.PRNGKey(0), 3))
    frames = jax.vmap(lambda s: env.render(s, size=32))(states)
    assert frames.shape == (3, 32, 32, 3)


def test_save_gif_round_trip(tmp_path):
    frames = np.zeros((3, 8, 8, 3), np.uint8)
    frames[1, :, :, 0] = 255
    path = save_gif(frames, tmp_path / "sub" / "x.gif", fps=5)
    with Image.open(path) as gif:
        assert gif.n_frames == 3
        gif.seek(1)
        assert gif.convert("RGB").getpixel((0, 0)) == (255, 0, 0)


def test_animate_and_cli(tmp_path):
    env = jaxmarl.make("MPE_simple_tag_v3")
    path = animate(env, jax.random.PRNGKey(0), tmp_path / "a.gif", num_steps=4, fps=10)
    # 5 frames of 100 ms; the GIF writer merges identical consecutive frames (MPE
    # agents start at rest, so the first step does not move them) into longer ones.
    assert gif_duration_ms(path) == 500
    out = tmp_path / "cli.gif"
    result = subprocess.run(
        [sys.executable, "-m", "jaxmarl.viz", "MPE_simple_tag_v3", "--steps", "3", "--out", str(out)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert f"wrote {out}" in result.stdout
    assert gif_duration_ms(out) == 400
