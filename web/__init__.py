"""``cardboard serve``: play, watch and replay every registered game in a browser (``app``, ``tables``, ``checks``:
what a page may ask for, ``serve``).

Its dependencies (starlette, uvicorn, websockets) are the ``web`` extra: ``pip install -e ".[web]"``; importing
``cardboard`` never imports this package.
"""
