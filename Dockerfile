# Berth's image: Node 24 running the JavaScript that `npm run build` (tsc) compiles from src/ into
# dist/. Build it first: the image holds no compiler, and a dist/ that does not match src/ fails the
# build (dist/.source.sha256 against scripts/source-hash.sh over the sources).
#
#   npm run build
#   docker build -t berth .                                          # from node:24-bookworm-slim
#   docker build --build-arg BASE_IMAGE=berth-base:node24 -t berth . # no image registry: the base from
#                                        # scripts/build-base-image.sh, the dependencies from
#                                        # scripts/prepare-image-dependencies.sh
#
#   docker run berth                              # controller + facade (`berth run`)
#   docker run berth --components facade          # flags go after the image: the entrypoint is `run`
#   docker run -e BERTH_COMPONENTS=controller berth
#
# Signals: node is PID 1 and Berth installs its own SIGTERM/SIGINT handlers (graceful stop, exit 0),
# so no init process is needed; Berth starts no child processes in `run`, so there are no zombies to
# reap. `docker run --init` adds tini in front if you want one anyway.
ARG BASE_IMAGE=node:24-bookworm-slim

# Production dependencies only. The `node` package is a devDependency (Node 24 for the npm scripts);
# the image's Node is the base image's. No production dependency has an install script.
# For a build that reaches no registry, scripts/prepare-image-dependencies.sh runs the same `npm ci`
# on the host beforehand (node_modules/.berth-image, stamped with the lockfile's hash) and this stage
# copies that instead; a stamp that does not match package-lock.json fails the build.
# Type declarations, TypeScript sources, source maps and docs are never loaded at run time (Node strips
# no types under node_modules): deleting them halves node_modules.
FROM ${BASE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json node_modules/.berth-image* ./
RUN if [ -d node_modules ]; then \
      echo "$(cat .package-lock.sha256)  package-lock.json" | sha256sum --check --status \
        || { echo "node_modules/.berth-image is stale: run scripts/prepare-image-dependencies.sh" >&2; exit 1; }; \
      echo "using the production dependencies prepared on the host"; \
    else \
      npm ci --omit=dev --ignore-scripts --no-audit --no-fund && rm -rf /root/.npm; \
    fi \
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.md' \) -delete

# The compiled JavaScript, checked against the sources it claims to come from.
FROM ${BASE_IMAGE} AS compiled
WORKDIR /app
COPY scripts/source-hash.sh ./scripts/
COPY src ./src
COPY dist ./dist
RUN [ "$(sh scripts/source-hash.sh)" = "$(cat dist/.source.sha256 2>/dev/null)" ] \
      || { echo "dist/ was not built from these sources: run npm run build" >&2; exit 1; }

FROM ${BASE_IMAGE}
ENV NODE_ENV=production
# glibc's malloc: see src/cli/node-flags.ts.
ENV MALLOC_MMAP_THRESHOLD_=131072
ENV MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY package.json ./
COPY crds ./crds
COPY --from=compiled /app/dist ./dist
# A fixed non-root uid/gid (the conventional "nonroot" 65532), numeric so that Kubernetes'
# runAsNonRoot can verify it without reading /etc/passwd. Nothing is written under /app: the root
# filesystem can be mounted read-only.
USER 65532:65532
EXPOSE 8080 9090
# Docker's own health check for plain `docker run`; Kubernetes uses the chart's probes instead.
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "const [h, p] = (process.env.BERTH_PROBE_ADDRESS || '0.0.0.0:9090').split(/:(?=\\d+$)/); fetch(`http://${h === '0.0.0.0' ? '127.0.0.1' : h}:${p}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# --optimize-for-size: src/cli/node-flags.ts says why.
ENTRYPOINT ["node", "--optimize-for-size", "dist/main.js", "run"]
