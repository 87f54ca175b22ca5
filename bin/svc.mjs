#!/usr/bin/env node
// The admin command line; runs the TypeScript sources through tsx.
import { register } from "tsx/esm/api"

register()
await import("../app/cli.ts")
