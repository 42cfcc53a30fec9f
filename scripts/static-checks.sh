#!/usr/bin/env bash
# npm test's first step: lint (eslint, then prettier's check) and typecheck (tsc) at once. Each is mostly
# one core's work, so on two cores they take about as long as the longer of them; either failing fails it.
set -uo pipefail
cd "$(dirname "$0")/.."
npm run -s lint &
lint=$!
npm run -s typecheck &
types=$!
status=0
wait "$lint" || status=$?
wait "$types" || status=$?
exit "$status"
