/**
 * `npm start` builds only when it must: dist/ missing, or built from other
 * sources (an edit, a new or deleted file). Checked on a copy of the sources,
 * so the tree the other suites run is left alone.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { root } from "../support/process.js"

const copy = fs.mkdtempSync(path.join(os.tmpdir(), "svc-build-"))
afterAll(() => fs.rmSync(copy, { recursive: true, force: true }))

for (const entry of [
  "schema",
  "src",
  "protocols",
  "app",
  "dashboard",
  "scripts",
  "package.json",
  "tsconfig.dashboard.json"
]) {
  fs.cpSync(path.join(root, entry), path.join(copy, entry), { recursive: true })
}
fs.symlinkSync(path.join(root, "node_modules"), path.join(copy, "node_modules"))

/** isStale() of the copy's build script, run as npm start would. */
const stale = () =>
  execFileSync(
    process.execPath,
    ["--input-type=module", "-e", "const b = await import('./scripts/build.mjs'); console.log(b.isStale())"],
    { cwd: copy, encoding: "utf8" }
  ).trim() === "true"

const ensureBuilt = () =>
  execFileSync(
    process.execPath,
    ["--input-type=module", "-e", "const b = await import('./scripts/build.mjs'); await b.ensureBuilt()"],
    { cwd: copy, encoding: "utf8" }
  )

describe("the build before npm start", () => {
  it("builds when dist/ is missing or its sources changed, and not otherwise", () => {
    expect(stale()).toBe(true)
    ensureBuilt()
    expect(fs.existsSync(path.join(copy, "dist", "main.js"))).toBe(true)
    expect(fs.existsSync(path.join(copy, "dist", "dashboard", "index.html"))).toBe(true)
    expect(stale()).toBe(false)
    const built = fs.statSync(path.join(copy, "dist", "main.js")).mtimeMs
    ensureBuilt()
    expect(fs.statSync(path.join(copy, "dist", "main.js")).mtimeMs).toBe(built)

    fs.appendFileSync(path.join(copy, "src", "platform", "Config.ts"), "\n// an edit\n")
    expect(stale()).toBe(true)
    ensureBuilt()
    expect(stale()).toBe(false)

    // The page's sources count too.
    fs.appendFileSync(path.join(copy, "dashboard", "format.ts"), "\n// an edit\n")
    expect(stale()).toBe(true)
    ensureBuilt()
    expect(stale()).toBe(false)

    fs.writeFileSync(path.join(copy, "src", "Extra.ts"), "export const extra = 1\n")
    expect(stale()).toBe(true)
    ensureBuilt()
    fs.rmSync(path.join(copy, "src", "Extra.ts"))
    expect(stale()).toBe(true)
    // Four builds (each bundles the dependencies since issue 27) and the first makes the embedded store's image:
    // ~30 s on a quiet machine, ~50 s when the other suites load it.
  }, 120_000)

  it("never builds where the sources are absent (the container image ships dist/ only)", () => {
    ensureBuilt()
    fs.rmSync(path.join(copy, "schema"), { recursive: true })
    expect(() => ensureBuilt()).not.toThrow()
    expect(fs.existsSync(path.join(copy, "dist", "main.js"))).toBe(true)
  })
})
