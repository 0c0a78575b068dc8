#!/usr/bin/env bash
# The device check of issue 32, for a machine whose python3 has torch with CUDA, numba, numpy, pytest and rich:
# the device tests (tests/test_devices.py: staging / launch / wait, device= of agents and learners, pinned
# staging; each on the CPU and on CUDA), the GPU benchmark (benchmarks/gpu_evaluator.py: states/s of
# BatchedEvaluator at batch 1, 64, 256, 1024 on cuda vs cpu, launch / wait times, double-buffering overlap), and
# the compiled network driver on CUDA (its tests, benchmarks/compiled_network.py on cuda and cpu), and issue 33's
# networks (tests/test_network.py's CUDA test, benchmarks/shaped_networks.py on cuda and cpu).
#
#   bash benchmarks/gpu_check.sh            # from the repository root; results in $OUT (default /tmp/gpu_check)
#
# What the machine lacks is installed by benchmarks/device_setup.sh (see there). About 6 minutes on an H200: the
# device tests use a pure-Python game, the compiled driver's pay for Lords of War's kernels once.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT="${OUT:-/tmp/gpu_check}"
PYTHON="${PYTHON:-python3}"
mkdir -p "$OUT"
status=0

source benchmarks/device_setup.sh

{
    nvidia-smi 2>&1 || echo "no nvidia-smi"
    "$PYTHON" -c "import sys, torch, numpy, numba; print(sys.version); print('torch', torch.__version__, 'cuda', \
torch.version.cuda, 'available', torch.cuda.is_available(), torch.cuda.get_device_name(0) if torch.cuda.is_available() \
else ''); print('numpy', numpy.__version__, 'numba', numba.__version__)"
} > "$OUT/machine.txt" 2>&1
cat "$OUT/machine.txt"

timeout 150 "$PYTHON" -m pytest tests/test_devices.py -q -rs -p no:cacheprovider --junitxml="$OUT/tests.xml" \
    2>&1 | tee "$OUT/tests.txt" || status=1

timeout 70 "$PYTHON" benchmarks/gpu_evaluator.py --seconds 1 --json "$OUT/gpu_evaluator.json" \
    2>&1 | tee "$OUT/gpu_evaluator.txt" || status=1

# the compiled network driver with the network on the GPU: its CUDA tests, then the search and self-play rows of
# benchmarks/compiled_network.py on cuda and on this machine's CPU (Lords of War's kernels compile on first use)
timeout "${COMPILED_TESTS_S:-240}" "$PYTHON" -m pytest tests/test_compiled_network.py -q -rs -p no:cacheprovider -k cuda \
    2>&1 | tee "$OUT/compiled_tests.txt" || status=1
for device in ${COMPILED_DEVICES:-cuda cpu}; do
    timeout "${COMPILED_BENCH_S:-150}" "$PYTHON" benchmarks/compiled_network.py --device "$device" --seconds 2 \
        --rounds 1 --seq-games 2 --json "$OUT/compiled_network_$device.json" 2>&1 | tee "$OUT/compiled_network_$device.txt" \
        || status=1
done

# issue 33's networks: the evaluator's CUDA test, then the game-shaped networks (convolutions, set encoder, message
# passing) and Gumbel/PUCT decisions on cuda and on this machine's CPU
timeout 120 "$PYTHON" -m pytest tests/test_network.py -q -rs -p no:cacheprovider -k cuda \
    2>&1 | tee "$OUT/network_tests.txt" || status=1
for device in ${SHAPED_DEVICES:-cuda cpu}; do
    timeout "${SHAPED_BENCH_S:-120}" "$PYTHON" benchmarks/shaped_networks.py --device "$device" --seconds 0.5 \
        --rounds 1 --json "$OUT/shaped_networks_$device.json" 2>&1 | tee "$OUT/shaped_networks_$device.txt" || status=1
done

echo "results in $OUT: machine.txt tests.txt tests.xml gpu_evaluator.txt gpu_evaluator.json compiled_tests.txt" \
    "compiled_network_{cuda,cpu}.{txt,json} network_tests.txt shaped_networks_{cuda,cpu}.{txt,json} (exit $status)"
exit $status
