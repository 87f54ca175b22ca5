/**
 * The embedded store's prepared image (src/platform/db/PgliteImage.ts): a
 * first start on an empty DATA_DIR starts from dist/pgdata.tar.gz (built by
 * test/support/global-setup.ts, as `npm run build` does); one from an older
 * schema gets the newer migrations on top; a missing, foreign or broken
 * image leaves the start to initdb, as before.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as SqlClient from "@effect/sql/SqlClient"
import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterAll, describe, expect, it } from "vitest"
import * as Database from "../../../src/platform/db/Database.js"
import { MIGRATION_COUNT } from "../../../src/platform/db/Migrations.js"
import { createOptions } from "../../../src/platform/db/Pglite.js"
import {
  type ImageStamp,
  PgliteImagePath,
  pgliteVersion,
  readStamp,
  stampPath,
  unpackImage,
  usableImage
} from "../../../src/platform/db/PgliteImage.js"
import { root } from "../../support/process.js"

const built = path.join(root, "dist", "pgdata.tar.gz")
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "svc-image-"))
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }))

const fresh = () => fs.mkdtempSync(path.join(scratch, "data-"))

/** The migrations applied and whether the newest table answers, on DATA_DIR `dataDir` started with `image`. */
const openWith = (dataDir: string, image: string | undefined) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const context = yield* Layer.build(Database.layerFor({ kind: "embedded", dataDir }, 2))
        const sql = Effect.runSync(Effect.provide(SqlClient.SqlClient, context))
        const applied = yield* sql<{ readonly count: number }>`SELECT count(*)::int AS count FROM effect_sql_migrations`
        const topics = yield* sql<{ readonly count: number }>`SELECT count(*)::int AS count FROM topics`
        return { migrations: applied[0]?.count, topics: topics[0]?.count }
      }).pipe(Effect.provideService(PgliteImagePath, image))
    )
  )

/** An image of a database that only initdb made (no migration at all): the oldest schema there can be. */
const bareImage = async (dir: string) => {
  const image = path.join(dir, "pgdata.tar.gz")
  const db = await PGlite.create({ ...createOptions, startParams: [...createOptions.startParams] })
  try {
    fs.writeFileSync(image, new Uint8Array(await (await db.dumpDataDir("gzip")).arrayBuffer()))
  } finally {
    await db.close()
  }
  const stamp: ImageStamp = { pglite: pgliteVersion(), key: "bare", migrations: 0 }
  fs.writeFileSync(stampPath(image), JSON.stringify(stamp))
  return image
}

describe("the embedded store's prepared image", () => {
  it("the build made one with every migration, for the installed PGlite", () => {
    const stamp = readStamp(built)
    expect(stamp?.pglite).toBe(pgliteVersion())
    expect(stamp?.migrations).toBe(MIGRATION_COUNT)
  })

  it("unpacks into a data directory, PG_VERSION and all (not by initdb's fallback)", async () => {
    const dataDir = fresh()
    await unpackImage(built, dataDir)
    expect(fs.readFileSync(path.join(dataDir, "PG_VERSION"), "utf8").trim()).toMatch(/^\d+$/)
    expect(fs.existsSync(path.join(dataDir, "base"))).toBe(true)
    expect(fs.existsSync(path.join(dataDir, "global", "pg_control"))).toBe(true)
  })

  it("a first start unpacks it, and the next start opens what it made", async () => {
    const dataDir = fresh()
    expect(usableImage(dataDir, built)).toBe(built)
    expect(await openWith(dataDir, built)).toEqual({ migrations: MIGRATION_COUNT, topics: 0 })
    expect(fs.existsSync(path.join(dataDir, "PG_VERSION"))).toBe(true)
    expect(fs.existsSync(path.join(dataDir, "gateway.lock"))).toBe(false)
    // A database is there now: the image is not for it.
    expect(usableImage(dataDir, built)).toBeUndefined()
    expect(await openWith(dataDir, built)).toEqual({ migrations: MIGRATION_COUNT, topics: 0 })
  }, 60_000)

  it("an image of an older schema gets the newer migrations on top", async () => {
    const dir = fresh()
    const image = await bareImage(dir)
    const dataDir = fresh()
    expect(await openWith(dataDir, image)).toEqual({ migrations: MIGRATION_COUNT, topics: 0 })
  }, 120_000)

  it("an image made by another PGlite, or none, leaves the start to initdb", async () => {
    const dir = fresh()
    const image = path.join(dir, "pgdata.tar.gz")
    fs.copyFileSync(built, image)
    const stamp: ImageStamp = { pglite: "0.0.1", key: "other", migrations: MIGRATION_COUNT }
    fs.writeFileSync(stampPath(image), JSON.stringify(stamp))
    expect(usableImage(fresh(), image)).toBeUndefined()
    expect(usableImage(fresh(), path.join(dir, "missing.tar.gz"))).toBeUndefined()
    expect(await openWith(fresh(), image)).toEqual({ migrations: MIGRATION_COUNT, topics: 0 })
  }, 120_000)

  it("a broken image is undone and initdb makes the database", async () => {
    const dir = fresh()
    const image = path.join(dir, "pgdata.tar.gz")
    // The first half of the real archive: it unpacks files, then ends early.
    const whole = fs.readFileSync(built)
    fs.writeFileSync(image, whole.subarray(0, Math.floor(whole.length / 2)))
    fs.copyFileSync(stampPath(built), stampPath(image))
    const dataDir = fresh()
    fs.mkdirSync(path.join(dataDir, "blobs"))
    expect(await openWith(dataDir, image)).toEqual({ migrations: MIGRATION_COUNT, topics: 0 })
    expect(fs.existsSync(path.join(dataDir, "blobs"))).toBe(true)
  }, 120_000)
})
