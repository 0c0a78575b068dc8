"""The docs' screenshots of the page (``docs/images/serve-GAME-MODE.png``): each bundled game played, watched and
replayed, in Debian's chromium (``browser``), small PNGs (a 64-colour palette).

    python -m cardboard.web.screenshots [--out docs/images]
"""
from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from PIL import Image

from cardboard.evaluation.match import play_match_specs
from cardboard.web.app import create_app
from cardboard.web.browser import launch, play_first_moves, serving, start_game

GAMES = {"lords_of_war": "", "hearth": "", "pandemic": "players=2", "fifth_aeon": ""}
SEARCHER = {"pandemic": "ismcts:iterations=100"}  # the watched searcher (Pandemic: every seat, open hands)
REPLAYED = {"pandemic": ["pandemic_default", "pandemic_default"]}  # the replayed match's agents (else greedy, random)
VIEWPORT = {"width": 1200, "height": 900}


def save(page: Any, path: Path) -> None:
    page.wait_for_timeout(150)  # the last frame drawn
    page.screenshot(path=str(path))
    Image.open(path).convert("RGB").quantize(64).save(path, optimize=True)


def steps(page: Any, button: str, count: int, until: str | None = None) -> None:
    """Click ``button`` ``count`` times (then on until ``until`` shows, at most as many again), each time waiting
    for the frame it asks for."""
    for done in range(2 * count):
        if done >= count and (until is None or page.locator(until).count()):
            return
        version = page.get_attribute("#status", "data-version")
        if page.get_attribute("#status", "data-over") == "1":
            return
        page.click(button)
        page.wait_for_function(f"document.querySelector('#status').dataset.version !== '{version}'")


def take(out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as folder:
        results = {name: str(Path(folder) / f"{name}.jsonl") for name in GAMES}
        for name, path in results.items():
            options = dict(option.split("=") for option in GAMES[name].split())
            play_match_specs(name, REPLAYED.get(name, ["greedy", "random"]), 1, 1, game_options=options,
                             results_path=path)
        shots = []
        with serving(create_app(list(results.values()))) as url, sync_playwright() as playwright:
            browser = launch(playwright)
            page = browser.new_page(viewport=VIEWPORT)
            for k, name in enumerate(GAMES):
                start_game(page, url, "play", name, options=GAMES[name], agents="random", seat=0)
                play_first_moves(page, stop_after=6)
                groups = page.locator("#moves [data-group]")
                if groups.count():  # one group opened: the moves as a player chooses them
                    groups.first.click()
                shots.append(out / f"serve-{name}-play.png")
                save(page, shots[-1])
                searcher = SEARCHER.get(name, "ismcts:iterations=200,random")
                start_game(page, url, "watch", name, options=GAMES[name], agents=searcher, view=0, seed=4)
                steps(page, "#step", 8, until="#stats table")
                shots.append(out / f"serve-{name}-watch.png")
                save(page, shots[-1])
                start_game(page, url, "replay", name, source=k, index=0)
                steps(page, "#forward", 40)
                shots.append(out / f"serve-{name}-replay.png")
                save(page, shots[-1])
            browser.close()
    return shots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("docs/images"))
    for path in take(parser.parse_args().out):
        print(f"{path} ({path.stat().st_size // 1024} KB)")


if __name__ == "__main__":
    main()
