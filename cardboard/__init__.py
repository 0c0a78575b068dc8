"""cardboard: card and board games for game-AI research.

    import cardboard
    cardboard.games()                                    # ['hearth', 'lords_of_war', ...]
    env = cardboard.make_env("lords_of_war")             # PettingZoo AEC env
    state = cardboard.new_state("lords_of_war", seed=1)  # forward model
    agent = cardboard.make_agent("greedy")
    cardboard.register_game("my_game", MyGame)           # your own game (see cardboard.api)
    gymnasium.make("cardboard/lords_of_war-v0")          # every game's seat env, registered at import
"""
__version__ = "0.2.0"

from cardboard.envs.registration import register_agent, register_game  # noqa: E402
from cardboard.registry import (agents, games, make_agent, make_env, make_game, make_seat_env, make_vec_env,  # noqa: E402
                                make_self_play_env, new_state, register_gym_envs)

__all__ = ["agents", "games", "make_agent", "make_env", "make_game", "make_seat_env", "make_vec_env", "make_self_play_env",
           "new_state", "register_agent", "register_game", "register_gym_envs", "__version__"]

register_gym_envs()  # last: it loads the bundled games and the plugins, which may import cardboard.api
