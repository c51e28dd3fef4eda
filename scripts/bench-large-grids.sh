#!/usr/bin/env bash
# Large grids: the CPU engine beside CaDiCaL on the same seeded puzzles (16×16, 20×20, 25×25 with 30–70% of a
# shuffled full grid emptied at random, so solvable but not always unique), one thread each. Builds the
# generator-and-timer example, installs python-sat into its own virtual environment (.venv-bench/, never linked
# into Forkboard), and prints the table of docs/benchmarks.md ("Large grids against CaDiCaL").
#
#   bash scripts/bench-large-grids.sh [COUNT] [SIDES] [SHARES] [FIRST_SEED]
#
# Defaults: 100 puzzles of each side and share; 16,20,25; 30,40,50,55,60,70; seeds from 0.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${1:-100}
sides=${2:-16,20,25}
shares=${3:-30,40,50,55,60,70}
first_seed=${4:-0}

if [ ! -x .venv-bench/bin/python ]; then
  python3 -m venv .venv-bench
fi
.venv-bench/bin/python -c 'import pysat' 2>/dev/null || .venv-bench/bin/pip install --quiet python-sat

cargo build --release --quiet --example large_grids
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
target/release/examples/large_grids "$work" "$count" "$sides" "$shares" "$first_seed"
.venv-bench/bin/python scripts/bench_large_grids.py "$work"
