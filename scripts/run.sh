#!/usr/bin/env bash
# Installs what is needed, builds the `forkboard` command line in release mode, and solves a sample file:
# the 95 hard puzzles of the original CUDA solver, in its own block layout, with a summary.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh
cargo build --release --locked --bin forkboard
sample=public/samples/top95.in
./target/release/forkboard solve "$sample" --count 2 --stats "$@"
