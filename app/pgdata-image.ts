/**
 * `node dist/pgdata-image.js <image> <key>`: makes the embedded store's
 * prepared image (src/platform/db/PgliteImage.ts). scripts/build.mjs runs it
 * in a process of its own, so that the build's memory is not the gateway's
 * when `npm start` builds first. The database is made as a first start would
 * make it: initdb, then every migration, with the same PGlite options.
 */
import * as fs from "node:fs"
import * as Reactivity from "@effect/experimental/Reactivity"
import * as SqlClient from "@effect/sql/SqlClient"
import { PGlite } from "@electric-sql/pglite"
import * as Effect from "effect/Effect"
import { migrate } from "../src/platform/db/Migrations.js"
import { createOptions, make } from "../src/platform/db/Pglite.js"
import { type ImageStamp, pgliteVersion, stampPath } from "../src/platform/db/PgliteImage.js"

const [image, key] = process.argv.slice(2)
if (image === undefined || key === undefined) throw new Error("usage: pgdata-image <image> <key>")

const db = await PGlite.create({ ...createOptions, startParams: [...createOptions.startParams] })
try {
  const migrations = await Effect.gen(function* () {
    const sql = yield* make(db)
    yield* Effect.provideService(migrate, SqlClient.SqlClient, sql)
    const [row] = yield* sql<{ readonly count: number }>`SELECT count(*)::int AS count FROM effect_sql_migrations`
    return row?.count ?? 0
  }).pipe(Effect.scoped, Effect.provide(Reactivity.layer), Effect.runPromise)
  // A clean shutdown first: the image then needs no recovery when it is opened.
  await db.exec("CHECKPOINT")
  const tar = await db.dumpDataDir("gzip")
  fs.writeFileSync(image, new Uint8Array(await tar.arrayBuffer()))
  const stamp: ImageStamp = { pglite: pgliteVersion(), key, migrations }
  fs.writeFileSync(stampPath(image), `${JSON.stringify(stamp)}\n`)
} finally {
  await db.close()
}
