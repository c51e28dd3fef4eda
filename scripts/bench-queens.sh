#!/usr/bin/env bash
# The N-Queens table of docs/benchmarks.md: total and unique counts for N = 16..21 on the GPU, beside the CPU
# counter on every core (up to CPU_MAX, default 19: N = 20 and 21 take minutes there).
#
#   bash scripts/bench-queens.sh [FORKBOARD_BINARY] [CPU_MAX]
#
# Each row is `forkboard queens N`, device set-up excluded (the kernel is compiled before timing starts); the
# published column checks every count against ../shared/data/queens/known_counts.csv's numbers.
set -euo pipefail
bin=${1:-target/release/forkboard}
cpu_max=${2:-19}
echo "GPU:"
"$bin" queens --range 16..21 --engine gpu
echo
echo "CPU, every core:"
"$bin" queens --range "16..$cpu_max" --engine cpu
