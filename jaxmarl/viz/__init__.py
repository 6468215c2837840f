"""Visualisation: render rollouts of any environment that implements ``render``.

>>> import jax, jaxmarl
>>> from jaxmarl.viz import rollout, render_states
>>> env = jaxmarl.make("MPE_simple_spread_v3")
>>> frames = render_states(env, rollout(env, jax.random.PRNGKey(0), num_steps=3))
>>> frames.shape, frames.dtype
((4, 400, 400, 3), dtype('uint8'))
"""

from jaxmarl.viz.rollout import animate, random_policy, render_states, rollout, save_gif

__all__ = ["animate", "random_policy", "render_states", "rollout", "save_gif"]
