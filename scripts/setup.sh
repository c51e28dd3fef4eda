#!/usr/bin/env bash
# Installs what Forkboard needs to build and test, skipping whatever is already there. Safe to run again.
set -euo pipefail

have() { command -v "$1" >/dev/null 2>&1; }
say() { echo "setup: $*"; }

if ! have cargo; then
  echo "setup: cargo not found; install Rust (https://rustup.rs) first" >&2
  exit 1
fi

if have rustup; then
  installed=$(rustup component list --installed 2>/dev/null || true)
  for component in rustfmt clippy; do
    if ! grep -q "^$component" <<<"$installed"; then
      say "adding the $component component"
      rustup component add "$component"
    fi
  done
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
fi

# lavapipe (Vulkan on the CPU) runs the GPU kernels in tests: a GPU test without an adapter fails.
if ! ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then
  say "installing mesa-vulkan-drivers (lavapipe)"
  sudo_=""
  [ "$(id -u)" -ne 0 ] && sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq mesa-vulkan-drivers >/dev/null
fi

# The shared puzzle sets live beside the checkout (../shared/data); the tests read them from there.
here=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -d "$here/../shared/data/sudoku" ]; then
  echo "setup: ../shared/data/sudoku is missing beside the checkout; the oracle tests need it" >&2
  exit 1
fi
say "ready"
