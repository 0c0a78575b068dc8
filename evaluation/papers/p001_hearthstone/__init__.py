"""Paper 001 (Zhang 2017, thesis): the card-play networks (``card_play``), their data, training and accuracy
(``card_play_data``, ``card_play_learn``: ``cardboard train-card-play``, ``card_play_pipeline``,
``card_play_accuracy``), the CNN + greedy agent (``card_play_agent``: ``cardplay``) and the network-guided HLR
rollouts (``hlr``: the ``hlr=`` knob of ``ismcts`` / ``duct``). DUCT and chance-node bucketing are search
strategies (``cardboard.search``).

Importing this package (``cardboard.registry`` does, as for a bundled game) registers the agent and installs the
knob; torch is imported only when one is built.
"""
from cardboard.envs.registration import register_agent
from cardboard.search.agents import set_hlr_strategies

from .card_play_agent import CardPlayAgent

register_agent("cardplay", CardPlayAgent, "paper 001's CNN + greedy (hearth): cardplay:path=PATH")


def _hlr_strategies(config, **knobs):
    from .hlr import hlr_strategies  # torch only when an agent asks for it

    return hlr_strategies(config, **knobs)


set_hlr_strategies(_hlr_strategies)  # the hlr= knob of ismcts / duct
