#!/usr/bin/env node
// The admin command line: the compiled dist/cli.js, built first when dist/ is missing or stale.
import { ensureBuilt } from "../scripts/build.mjs"

process.setSourceMapsEnabled(true)
await ensureBuilt()
await import("../dist/cli.js")
