#!/usr/bin/env bash
# Installs the npm packages, which carry Node 24 for every npm script, when the lock file changed
# since the last install: a second run starts at once. `npm install` follows the lock as `npm ci`
# would; npm 11 leaves other platforms' optional packages (@swc/core-darwin-*, ...) out of the
# lock it writes and then its own `npm ci` refuses that lock as out of sync.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v npm >/dev/null 2>&1; then
  echo "capstan: npm is missing: install Node.js (any version with npm; the packages bring Node 24)" >&2
  exit 1
fi
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ] || [ package.json -nt node_modules/.package-lock.json ]; then
  echo "installing npm packages" >&2
  # --prefer-offline: a warm cache is used as it is, without asking the registry about each package.
  npm install --prefer-offline --no-audit --no-fund --loglevel=error
  touch node_modules/.package-lock.json
fi
