#!/usr/bin/env bash
# Installs what is needed, then runs every check: formatting, lints, all tests, and the browser (wasm) build of
# the engine.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --all-targets --locked -- -D warnings

echo "== the engine builds for the browser (wasm32-unknown-unknown)"
cargo build --lib --locked --target wasm32-unknown-unknown

echo "== the benchmark builds"
cargo bench --no-run --locked --bench sudoku_cpu

echo "== cargo test"
cargo test --locked
