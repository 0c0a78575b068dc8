"""Paper 001 (Zhang 2017, thesis): the card-play networks (``card_play``), their data, training and accuracy
(``card_play_data``, ``card_play_learn``: ``cardboard train-card-play``, ``card_play_pipeline``,
``card_play_accuracy``), the CNN + greedy agent (``card_play_agent``: ``cardplay``) and the network-guided HLR
rollouts (``hlr``: the ``hlr=`` knob of ``ismcts`` / ``duct``). DUCT and chance-node bucketing are search
strategies (``cardboard.search``).

Importing this package (``cardboard.registry`` does, as for a bundled game) registers the agent; the registry hands
``hlr_strategies`` to the searches that take ``hlr=``. torch is imported only when one is built.
"""
from cardboard.envs.registration import register_agent

from .card_play_agent import CardPlayAgent

register_agent("cardplay", CardPlayAgent, "paper 001's CNN + greedy (hearth): cardplay:path=PATH")


def hlr_strategies(config, **knobs):
    """The ``hlr=`` knob of ismcts / duct (``hlr.hlr_strategies``; the registry hands it to them as
    ``Extensions.hlr``)."""
    from .hlr import hlr_strategies as build  # torch only when an agent asks for it

    return build(config, **knobs)
