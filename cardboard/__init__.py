"""cardboard: card and board games for game-AI research.

    import cardboard
    cardboard.games()                         # ['lords_of_war']
    env = cardboard.make_env("lords_of_war")  # PettingZoo AEC env
    state = cardboard.new_state("lords_of_war", seed=1)  # forward model
    agent = cardboard.make_agent("greedy")
"""
__version__ = "0.1.0"

from cardboard.registry import agents, games, make_agent, make_env, make_game, new_state  # noqa: E402

__all__ = ["agents", "games", "make_agent", "make_env", "make_game", "new_state", "__version__"]
