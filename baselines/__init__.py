"""jaxmarl's training scripts as a package: ``baselines.ppo`` (IPPO, MAPPO),
``baselines.a2c`` (IA2C, MAA2C), ``baselines.qlearning`` (IQL, VDN, QMIX),
``baselines.evaluate``, and what they share (``baselines.actor_critic`` for PPO and A2C,
``baselines.common``, ``baselines.runs``).

Each script also runs from the command line (``python baselines/ppo.py env=...``); after
``pip install -e ".[baselines]"`` they import from anywhere, e.g. to load a trained run
with :func:`jaxmarl.load_policy`.
"""
