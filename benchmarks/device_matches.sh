#!/usr/bin/env bash
# Matches on a machine with many cores (the device machine lent to a task: 16 cores), one `cardboard play` per line
# of a match list, each with one worker process per core; both sides of a match share the machine's load, so
# equal-time matches stay fair. Each game's record goes to $OUT/NAME.jsonl (resumable) and the table to
# $OUT/NAME.txt.
#
#   bash benchmarks/device_matches.sh benchmarks/matches/issue33.txt     # results in $OUT (default /tmp/matches)
#
# A match list has one match a line: NAME GAME GAMES SEED AGENTS [--option K=V ...]; '#' starts a comment. Every
# game named is warmed first in this process (one short game: its kernels and the search loop compiled into
# numba's cache, so the workers read them instead of each compiling). What the machine lacks is installed by
# benchmarks/device_setup.sh. A line's match is cut at $MATCH_S seconds (default 300); what it finished is kept.
set -uo pipefail
cd "$(dirname "$0")/.."
LIST="$1"
OUT="${OUT:-/tmp/matches}"
PYTHON="${PYTHON:-python3}"
WORKERS="${WORKERS:-$(nproc)}"
mkdir -p "$OUT"
source benchmarks/device_setup.sh
status=0
"$PYTHON" -c "import os, sys, numba, numpy; print(sys.version); print('cores', os.cpu_count(), 'numba', numba.__version__)" \
    > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"
while read -r name game games seed agents options; do
    case "$name" in ''|'#'*) continue ;; esac
    if [ ! -e "$OUT/.warm_$game" ]; then
        SECONDS=0
        # shellcheck disable=SC2086
        "$PYTHON" -m cardboard.cli play "$game" --agents "$agents" --games 1 --seed 0 --quiet $options > /dev/null \
            && touch "$OUT/.warm_$game"
        echo "warmed $game in ${SECONDS} s"
    fi
    SECONDS=0
    # shellcheck disable=SC2086
    timeout "${MATCH_S:-300}" "$PYTHON" -m cardboard.cli play "$game" --agents "$agents" --games "$games" \
        --seed "$seed" --workers "$WORKERS" --quiet --results "$OUT/$name.jsonl" $options > "$OUT/$name.txt" 2>&1 \
        || status=1
    echo "$name: ${SECONDS} s, $(grep -c "\"index\"" "$OUT/$name.jsonl" 2>/dev/null || echo 0) games"
    tail -n 14 "$OUT/$name.txt"
done < "$LIST"
exit $status
