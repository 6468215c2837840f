"""Multi-agent particle environments (MPE), matching PettingZoo's ``mpe2``."""

from jaxmarl.environments.mpe.collect_treasure import CollectTreasureMPE
from jaxmarl.environments.mpe.constants import CONTINUOUS_ACT, DISCRETE_ACT
from jaxmarl.environments.mpe.env import MPEEnv
from jaxmarl.environments.mpe.mpe_visualizer import MPEVisualizer
from jaxmarl.environments.mpe.simple import SimpleMPE
from jaxmarl.environments.mpe.simple_adversary import SimpleAdversaryMPE
from jaxmarl.environments.mpe.simple_crypto import SimpleCryptoMPE
from jaxmarl.environments.mpe.simple_facmac import (
    SimpleFacmacMPE,
    SimpleFacmacMPE3a,
    SimpleFacmacMPE6a,
    SimpleFacmacMPE9a,
)
from jaxmarl.environments.mpe.simple_formation import SimpleFormationMPE
from jaxmarl.environments.mpe.simple_line import SimpleLineMPE
from jaxmarl.environments.mpe.simple_push import SimplePushMPE
from jaxmarl.environments.mpe.simple_reference import SimpleReferenceMPE
from jaxmarl.environments.mpe.simple_speaker_listener import SimpleSpeakerListenerMPE
from jaxmarl.environments.mpe.simple_spread import SimpleSpreadMPE
from jaxmarl.environments.mpe.simple_tag import SimpleTagMPE
from jaxmarl.environments.mpe.simple_world_comm import SimpleWorldCommMPE
from jaxmarl.environments.mpe.types import State, TreasureState

__all__ = [
    "CONTINUOUS_ACT",
    "DISCRETE_ACT",
    "CollectTreasureMPE",
    "MPEEnv",
    "MPEVisualizer",
    "SimpleAdversaryMPE",
    "SimpleCryptoMPE",
    "SimpleFacmacMPE",
    "SimpleFacmacMPE3a",
    "SimpleFacmacMPE6a",
    "SimpleFacmacMPE9a",
    "SimpleFormationMPE",
    "SimpleLineMPE",
    "SimpleMPE",
    "SimplePushMPE",
    "SimpleReferenceMPE",
    "SimpleSpeakerListenerMPE",
    "SimpleSpreadMPE",
    "SimpleTagMPE",
    "SimpleWorldCommMPE",
    "State",
    "TreasureState",
]
