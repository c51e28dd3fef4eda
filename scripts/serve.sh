#!/usr/bin/env bash
# Installs what is missing, then serves the web app at http://127.0.0.1:8080 (release build; trunk rebuilds on
# changes). Stop with Ctrl-C.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup-web.sh
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
exec trunk serve --release --offline
