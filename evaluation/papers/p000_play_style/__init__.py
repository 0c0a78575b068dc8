"""Paper 000 (Sephton 2016, thesis): Lords of War play style (``low_play_style``) and parallel search
(``low_parallel``). README.md: the claims, our commands and numbers."""
