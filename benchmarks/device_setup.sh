# Sourced by the device scripts (gpu_check.sh, device_matches.sh) from the repository root, with $PYTHON set: makes
# `import cardboard` work on a machine whose python has torch, numba and numpy but perhaps not the rest.
# Dependencies the machine may lack (gymnasium, pettingzoo, safetensors, rich and theirs) are installed from .whl/
# when that folder is there (carry it), into /tmp/site. cardboard is installed editable from the working tree (no
# download: --no-build-isolation); where that fails, links inside cardboard/ map the top-level folders of
# setup.py's ROOTS into the namespace for the run (removed at exit), and a dist-info of our own declares the
# entry-point commands.
if [ -d .whl ] && ! "$PYTHON" -c "import gymnasium, pettingzoo, safetensors, rich" 2>/dev/null; then
    "$PYTHON" -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
fi
linked=()
if ! "$PYTHON" -c "import cardboard.envs" 2>/dev/null && \
        ! "$PYTHON" -m pip install -q --no-index --no-deps --no-build-isolation -e . 2>/dev/null; then
    # no editable install: links, and the entry-point commands (expert-iteration, ...) from a dist-info of our own
    mkdir -p /tmp/site/cardboard-0.dist-info
    "$PYTHON" - <<'PY'
import tomllib
points = tomllib.load(open("pyproject.toml", "rb"))["project"]["entry-points"]
with open("/tmp/site/cardboard-0.dist-info/entry_points.txt", "w") as f:
    for group, names in points.items():
        f.write(f"[{group}]\n" + "".join(f"{k} = {v}\n" for k, v in names.items()) + "\n")
open("/tmp/site/cardboard-0.dist-info/METADATA", "w").write("Metadata-Version: 2.1\nName: cardboard\nVersion: 0\n")
PY
    export PYTHONPATH="/tmp/site${PYTHONPATH:+:$PYTHONPATH}"
    for folder in $("$PYTHON" -c "import re; print(*re.findall(r'\"cardboard\.\w+\": \"(\w+)\"', open('setup.py').read()))"); do
        if [ ! -e "cardboard/$folder" ]; then
            ln -s "../$folder" "cardboard/$folder"
            linked+=("cardboard/$folder")
        fi
    done
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
trap 'for link in "${linked[@]}"; do rm -f "$link"; done' EXIT
