"""What every long job shares, below both training and evaluation: seed streams (``seeds``), seat order
(``seats``), intervals (``intervals``), worker pools that die with their parent (``worker_pool``) and resumable
result folders (``resumable``). Matches, tournaments, self-play, expert iteration and the papers' experiments all
run on these."""
