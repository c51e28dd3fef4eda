#!/usr/bin/env bash
# Installs what is needed, then runs every check: formatting, lints, the API docs, all tests, and the browser
# (wasm) build of the engine.
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/setup-web.sh

echo "== cargo fmt --check"
cargo fmt --all -- --check

echo "== cargo clippy"
cargo clippy --all-targets --locked -- -D warnings

echo "== the API docs build without broken or private links"
RUSTDOCFLAGS="-D warnings" cargo doc --lib --no-deps --locked

echo "== the engine builds for the browser (wasm32-unknown-unknown)"
cargo build --lib --locked --target wasm32-unknown-unknown
cargo clippy --locked --target wasm32-unknown-unknown --features web --bin forkboard-web --bin forkboard-worker -- -D warnings

echo "== the benchmark builds"
cargo bench --no-run --locked --bench sudoku_cpu

# Mesa's Vulkan loader warns about a missing XDG_RUNTIME_DIR (a desktop setting) on headless machines.
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
chmod 700 "$XDG_RUNTIME_DIR"

echo "== cargo test"
cargo test --locked

echo "== the Ray driver on a local Ray cluster (cluster/)"
bash cluster/test.sh

echo "== the web app: release build, then the browser tests (WebGPU on and off)"
bash scripts/build-web.sh
node --test --test-concurrency=1 e2e/
