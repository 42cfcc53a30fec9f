#!/usr/bin/env bash
# `npm run build`: compiles src/ (tests excluded) to dist/ with tsc, the JavaScript the image runs.
# Running the sources directly (Node's type stripping, as `npm start` and the tests do) keeps a
# TypeScript parser in memory for the life of the process: about 18 MiB. dist/.source.sha256 records
# which sources it was built from; the Dockerfile refuses a dist/ that does not match its src/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
rm -rf dist
node_modules/.bin/tsc -p tsconfig.build.json
bash scripts/source-hash.sh > dist/.source.sha256
echo "built dist/ from src/ ($(cat dist/.source.sha256 | cut -c1-12))" >&2
