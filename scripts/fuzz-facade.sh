#!/usr/bin/env bash
# Fuzzes the HTTP facade and the CRDs on their own: the fuzz file of the reliability suite, with the
# number of generated requests as the first argument (default 2000) and an optional seed as the second
# (printed by every run, so a failing run can be replayed). The generator is fast-check, in TypeScript:
# no Python or other toolchain is needed. Figures go to .berth/reliability/fuzz-*.json.
#   scripts/fuzz-facade.sh 10000
#   scripts/fuzz-facade.sh 2000 108548978
set -euo pipefail
cd "$(dirname "$0")/.."

export BERTH_RELIABILITY_FUZZ_RUNS="${1:-${BERTH_RELIABILITY_FUZZ_RUNS:-2000}}"
if [[ -n "${2:-}" ]]; then export BERTH_RELIABILITY_SEED="$2"; fi
exec npx vitest run --config vitest.reliability.config.ts test/reliability/fuzz.reliability.ts
