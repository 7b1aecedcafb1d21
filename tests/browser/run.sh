#!/usr/bin/env bash
# Runs the browser tests: the real server binary (built here, once, for every test file) and a
# real headless Chromium. Installs nothing but the npm packages of package-lock.json (npm ci)
# when they are missing.
set -euo pipefail
cd "$(dirname "$0")"

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
if [ ! -x "$CHROMIUM" ]; then
  echo "error: no Chromium at $CHROMIUM. Install it (Debian: apt-get install -y chromium) or set CHROMIUM=/path/to/chromium." >&2
  exit 1
fi
if ! command -v node >/dev/null 2>&1; then
  echo "error: Node.js (20 or newer) is needed to run the browser tests." >&2
  exit 1
fi
if [ ! -d node_modules ]; then
  npm ci --no-audit --no-fund
fi
export CHROMIUM
(cd ../.. && cargo build --locked --quiet -p fourkings-server --bin fourkings \
  && cargo build --locked --quiet -p fourkings-tests --bin test-cluster)
target="${CARGO_TARGET_DIR:-$PWD/../../target}"
export FOURKINGS_BINARY="$target/debug/fourkings"
export FOURKINGS_TEST_CLUSTER="$target/debug/test-cluster"
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 20 ]; then
  echo "error: the browser tests need Node.js 20 or newer (found $(node --version))." >&2
  exit 1
fi
npm test
