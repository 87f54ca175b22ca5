import { execFileSync } from "node:child_process"
import * as path from "node:path"

/**
 * Builds dist/ once before any suite: the process tests run the compiled
 * gateway and CLI as users do (bin/gateway.mjs, bin/svc.mjs), and those would
 * otherwise each rebuild a stale dist/ at the same time.
 */
export default function setup() {
  execFileSync(process.execPath, [path.resolve(import.meta.dirname, "..", "..", "scripts", "build.mjs")], {
    stdio: "inherit"
  })
}
