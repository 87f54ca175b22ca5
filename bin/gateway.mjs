#!/usr/bin/env node
// `npm start`: the compiled gateway (dist/main.js), built first when dist/ is
// missing or stale. This process is the one that serves, so it is the one that
// gets SIGTERM and SIGINT: no wrapper process is left between them.
import { ensureBuilt } from "../scripts/build.mjs"

process.setSourceMapsEnabled(true)
await ensureBuilt()
await import("../dist/main.js")
