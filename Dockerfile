# syntax=docker/dockerfile:1
# The gateway's image: built in one stage, run from another that holds only
# dist/, the launcher and the production dependencies (README: Production).

# Node 24 (LTS), one of the two Nodes CI runs the suite on, on the Debian
# release CI runs on (bookworm): PGlite's WebAssembly and the prebuilt native
# packages (esbuild, @parcel/watcher, msgpackr-extract) run as they do there.
ARG NODE_IMAGE=node:24-bookworm-slim

# The dependencies are installed by the unprivileged `node` user too, so no
# package's install script runs as root. The image's own npm installs exactly
# the lockfile; an npm that reads package.json's allowScripts (CI's 11.19
# does) skips the install scripts it denies, and one that does not runs them
# harmlessly (each finds its prebuilt binary installed and does nothing more).
FROM ${NODE_IMAGE} AS build
WORKDIR /app
RUN chown node:node /app
USER node
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY schema ./schema
COPY src ./src
COPY protocols ./protocols
COPY app ./app
COPY tsconfig.dashboard.json ./
COPY dashboard ./dashboard
RUN node scripts/build.mjs

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
RUN chown node:node /app
USER node
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force

FROM ${NODE_IMAGE} AS runtime
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8787 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY bin ./bin
COPY scripts/build.mjs ./scripts/build.mjs
# The embedded store's directory (unused with DATABASE_URL), owned by the unprivileged user.
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8787
# Ready: the database answers (503 while it does not, or while the gateway drains).
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/readyz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node is PID 1 and handles SIGTERM and SIGINT itself (graceful drain, then exit 0); it starts no child processes.
STOPSIGNAL SIGTERM
CMD ["node", "bin/gateway.mjs"]
