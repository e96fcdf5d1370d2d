#!/usr/bin/env bash
# Installs what the tests need (npm packages, Debian's chromium) and runs every test:
# typecheck, unit tests, integration tests on a throwaway embedded Postgres, Playwright in Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
export TZ=UTC CI=${CI:-true}

if [ ! -x /usr/bin/chromium ]; then
  echo "== installing chromium (Debian)"
  SUDO=""; [ "$(id -u)" = "0" ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

echo "== npm ci"
npm ci --no-audit --no-fund
npx prisma generate >/dev/null

echo "== typecheck"
npx tsc --noEmit -p tsconfig.json

echo "== unit tests"
npx vitest run

echo "== integration tests (real Postgres)"
npx vitest run -c vitest.int.config.ts

echo "== web build"
ENVACE_SECRET=build-only-secret-0123456789abcdef0123 npx next build >/dev/null

echo "== browser tests (Playwright, Chromium)"
npx playwright test
