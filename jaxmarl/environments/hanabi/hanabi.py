"""JaxMARL 0.2.0's ``hanabi.hanabi`` module: ``HanabiEnv`` is our :class:`Hanabi`, with
JaxMARL's methods (see :mod:`jaxmarl.environments.hanabi.jaxmarl_api`)."""

from jaxmarl.environments.hanabi.env import Hanabi

HanabiEnv = Hanabi

__all__ = ["HanabiEnv"]
