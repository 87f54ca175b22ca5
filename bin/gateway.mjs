#!/usr/bin/env node
// `npm start`: the compiled gateway (dist/main.js), built first when dist/ is
// missing or stale. This process is the one that serves, so it is the one that
// gets SIGTERM and SIGINT: no wrapper process is left between them.
import { ensureBuilt } from "../scripts/build.mjs"

// Source maps stay off unless asked for (NODE_OPTIONS=--enable-source-maps): Node parses a chunk's map at the
// first stack trace through it and keeps it, up to ~59 MB of heap and 0.3 to 1.2 s of CPU over dist/'s maps, spent
// at the first errors of an outage (docs/operations.md "Start-up and memory"). Stacks name dist/'s functions as
// written (the build keeps names); the maps beside them still resolve a position by hand.
await ensureBuilt()
await import("../dist/main.js")
