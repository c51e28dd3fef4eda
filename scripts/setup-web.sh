#!/usr/bin/env bash
# Installs what building and browser-testing the web app needs, skipping whatever is already there:
# trunk 0.21 (0.22 needs a newer rustc), wasm-bindgen-cli at exactly Cargo.lock's wasm-bindgen version, npm's
# binaryen 132 (Debian's wasm-opt 108 breaks release builds) and playwright-core, and Debian's Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { echo "setup-web: $*"; }
have() { command -v "$1" >/dev/null 2>&1; }
export PATH="$HOME/.cargo/bin:$PATH"

bash scripts/setup.sh

if ! have trunk || ! trunk --version | grep -q ' 0\.21\.'; then
  say "installing trunk 0.21 (about 10 minutes on 2 cores)"
  cargo install trunk --version '~0.21' --locked
fi

want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/"/, "", $3); print $3; exit }' Cargo.lock)
if ! have wasm-bindgen || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$want" ]; then
  say "installing wasm-bindgen-cli $want (matching Cargo.lock)"
  # Not --locked: its own lock file names a crate version the registry here lacks.
  cargo install wasm-bindgen-cli --version "$want" --force
fi

if [ ! -x node_modules/.bin/wasm-opt ] || [ ! -d node_modules/playwright-core ]; then
  say "installing npm tools (binaryen, playwright-core)"
  npm ci --no-audit --no-fund
fi

if [ ! -x /usr/bin/chromium ]; then
  say "installing Debian's Chromium"
  sudo_=""
  [ "$(id -u)" -ne 0 ] && sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq chromium >/dev/null
fi
say "ready"
