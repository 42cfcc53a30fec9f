#!/usr/bin/env bash
# `npm run build`: builds the web console (vite.console.config.ts) and compiles what src/main.ts reaches (and the stand-ins src/cli/without-api-clients.ts
# loads by name: tsconfig.build.json) to dist/ with tsc, the JavaScript the image runs. The CRD and
# chart generators and the admission-policy renderers, which scripts, the workbench and tests read, stay out.
# Running the sources directly (Node's type stripping, as `npm start` and the tests do) keeps a
# TypeScript parser in memory for the life of the process: about 18 MiB. dist/.source.sha256 records
# which sources it was built from; the Dockerfile refuses a dist/ that does not match its src/.
# A dist/ built from the same inputs (the sources, the build's configuration and the lockfile, stamped
# in dist/.build-inputs.sha256) is kept: the image and helm suites each ask for it, and it is built once.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sources=$(bash scripts/source-hash.sh)
inputs=$({ echo "$sources"; sha256sum tsconfig.json tsconfig.build.json vite.console.config.ts package-lock.json scripts/build.sh; } | sha256sum | cut -d' ' -f1)
if [[ -f dist/.build-inputs.sha256 && $(cat dist/.build-inputs.sha256) == "$inputs" ]]; then
  echo "dist/ is already built from these sources ($(cut -c1-12 dist/.source.sha256))" >&2
  exit 0
fi
rm -rf dist
node_modules/.bin/tsc -p tsconfig.build.json
# The web console (src/console) as static files, dist/console, which the facade serves at /console/.
node_modules/.bin/vite build --config vite.console.config.ts
echo "$sources" > dist/.source.sha256
echo "$inputs" > dist/.build-inputs.sha256
echo "built dist/ from src/ ($(cat dist/.source.sha256 | cut -c1-12))" >&2
