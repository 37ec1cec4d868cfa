#!/usr/bin/env bash
# Installs the pinned third-party MCP servers the end-to-end tests run
# against, and markdownlint-cli2, which lints the markdown reports they
# write (scripts/peers/package-lock.json), into scripts/peers/node_modules,
# and the TypeScript SDK fixtures' dependencies: fixtures/tsserver (SDK 1.x)
# and fixtures/tsserver2 (SDK 2.x), both servers of the verdict corpus, and
# fixtures/tsauth (SDK 1.x server-side auth, for the auth audit).
# With --bench it also installs what the speed benchmarks compare with:
# MCP Inspector (the newest pinned, and 0.15) and the TypeScript SDK.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
if ! command -v npm >/dev/null; then
  echo "install-peers: npm is not installed; the end-to-end tests need Node.js and npm" >&2
  exit 1
fi
npm ci --prefix "$here/peers" --no-audit --no-fund --loglevel=error
npm ci --prefix "$here/../fixtures/tsserver" --no-audit --no-fund --loglevel=error
npm ci --prefix "$here/../fixtures/tsserver2" --no-audit --no-fund --loglevel=error
npm ci --prefix "$here/../fixtures/tsauth" --no-audit --no-fund --loglevel=error
if [ "${1:-}" = "--bench" ]; then
  # The newest Inspector pulls in vite, whose optional Windows-only
  # dependency napi-windows-process-start-time is listed without a lock
  # entry, and a registry that does not serve it makes `npm ci` refuse the
  # lock as out of sync. `npm install` keeps every locked version, skips the
  # optional package it cannot fetch and leaves the lock as it is.
  npm ci --prefix "$here/bench" --no-audit --no-fund --loglevel=error 2>/dev/null ||
    npm install --prefix "$here/bench" --no-audit --no-fund --loglevel=error
  npm ci --prefix "$here/bench/inspector-0.15" --no-audit --no-fund --loglevel=error
fi
