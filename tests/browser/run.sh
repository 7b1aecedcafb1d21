#!/usr/bin/env bash
# Runs the browser tests: the real server binary and a real headless Chromium.
# Installs nothing but the npm packages of package-lock.json (npm ci) when they are missing.
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
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -ge 20 ]; then
  npm test
elif [ "$node_major" -ge 18 ]; then
  # Node 18 has no --test-concurrency: run the files one after another instead, since each one
  # drives several browsers and a server, and two at once would compete for the machine.
  for file in *.test.js; do node --test --test-reporter=spec "$file"; done
else
  echo "error: the browser tests need Node.js 18 or newer (found $(node --version))." >&2
  exit 1
fi
