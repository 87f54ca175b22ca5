# syntax=docker/dockerfile:1
# The gateway's image: built in one stage, run from another that holds only
# dist/, the launcher and the production dependencies (README: Production).

# Node 20 on Debian: PGlite's WebAssembly and the native-free dependencies run as on CI.
ARG NODE_IMAGE=node:20-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm 10's `ci` (npm 11's refuses a lockfile without other platforms' optional packages).
RUN npx --yes npm@10.9.4 ci --no-audit --no-fund
COPY tsconfig.json ./
COPY scripts ./scripts
COPY schema ./schema
COPY src ./src
COPY protocols ./protocols
COPY app ./app
RUN node scripts/build.mjs

FROM ${NODE_IMAGE} AS dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npx --yes npm@10.9.4 ci --omit=dev --no-audit --no-fund && npm cache clean --force

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
