"""Issue 32: a searcher's first time-budgeted decision in a process is not spent loading kernels.

Each case runs in a fresh interpreter, where no kernel has been called yet, with an empty numba cache of its own:
every kernel compiles at its first call, so a first decision whose warm-up was skipped spends its budget compiling
(with a warm cache, loading is fast enough to hide a skipped warm-up). Three decisions of one agent from one position
at ``seconds=0.05``: before the fix the first ran 0 iterations (compiled ISMCTS on Lords of War, RHEA on
Pandemic) or 1-2 (Hearth DUCT, tree parallelisation) where the others ran hundreds.
"""
import json
import os
import subprocess
import sys

import pytest

SCRIPT = """
import json, sys
import numpy as np
import cardboard
from cardboard.envs.protocol import sample_chance

def main():
    game, spec = sys.argv[1], sys.argv[2]
    agent = cardboard.make_agent(spec, cardboard.make_game(game))
    state, rng = cardboard.new_state(game, seed=1), np.random.default_rng(1)
    while state.current_player < 0 or len(state.legal_actions()) < 2:
        state.apply(int(sample_chance(state, rng)) if state.current_player < 0 else int(state.legal_actions()[0]))
    counts = []
    for _ in range(3):
        if hasattr(agent, "plan"):
            counts.append(agent.plan(state, rng).generations_run)
        else:
            counts.append(agent.searcher.search(state, rng).iterations)
    agent.close() if hasattr(agent, "close") else None
    print(json.dumps(counts))

if __name__ == "__main__":
    main()
"""

CASES = {
    "compiled ismcts": ("lords_of_war", "ismcts:iterations=0,seconds=0.05"),
    "python-path uct": ("lords_of_war", "uct:iterations=0,seconds=0.05,compiled=0"),
    "duct": ("hearth", "duct:iterations=0,seconds=0.05"),
    "tree parallel": ("lords_of_war", "ismcts:iterations=0,seconds=0.05,parallel=tree"),
    "leaf parallel": ("lords_of_war", "uct:iterations=0,seconds=0.05,parallel=leaf"),
    "rhea": ("pandemic", "rhea:seconds=0.05,generations=1000000"),
}


@pytest.mark.parametrize("game, spec", list(CASES.values()), ids=list(CASES))
def test_the_first_timed_decision_of_a_process_searches(game, spec, tmp_path):
    script = tmp_path / "first_decisions.py"
    script.write_text(SCRIPT)
    env = os.environ | {"NUMBA_CACHE_DIR": str(tmp_path / "numba-cache")}  # cold: nothing compiled yet
    out = subprocess.run([sys.executable, str(script), game, spec], capture_output=True, text=True, timeout=600,
                         check=True, env=env)
    first, second, third = json.loads(out.stdout.strip().splitlines()[-1])
    assert first > 0
    assert first >= min(second, third) / 4, (first, second, third)
