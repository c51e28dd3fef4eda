#!/usr/bin/env bash
# Builds the web app into dist/ (release, offline), as the e2e tests and deployments use it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$HOME/.cargo/bin:$PATH"
trunk build --release --offline
# The Content-Security-Policy, pinned to this build's one inline loader script.
node scripts/csp.mjs dist/index.html
# The service worker that keeps this build for offline use (after the policy: index.html is final).
node scripts/sw.mjs dist
