/**
 * The embedded store's prepared image: a PGlite data directory made by
 * `npm run build` (app/pgdata-image.ts), initdb done and every migration
 * applied, as a gzipped tar (dist/pgdata.tar.gz) with a stamp beside it
 * (dist/pgdata.json). A first start on an empty DATA_DIR unpacks it instead
 * of running initdb, which costs seconds and a second and third WebAssembly
 * instance of PostgreSQL (the peak of the first start: ~0.85 GB against
 * ~0.2 GB). The migrations still run after it (those newer than the image, if
 * any). This module does not load PGlite.
 */
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as tar from "tar"

/** The image's file (dist/pgdata.tar.gz), given by the composition root; undefined: initdb, as before. */
export class PgliteImagePath extends Context.Reference<PgliteImagePath>()("svc/PgliteImagePath", {
  defaultValue: (): string | undefined => undefined
}) {}

/** What the image was made with: a data directory is only good for the PGlite (PostgreSQL) it was made by. */
export const ImageStamp = Schema.Struct({
  pglite: Schema.String,
  /** A hash of what went into it (the migrations, PGlite's version), so that a build can reuse it. */
  key: Schema.String,
  migrations: Schema.Number
})
export type ImageStamp = typeof ImageStamp.Type

/** The stamp beside an image: pgdata.tar.gz → pgdata.json. */
export const stampPath = (image: string) => path.join(path.dirname(image), "pgdata.json")

/** The installed PGlite's version (its package.json is not exported: read beside its entry). */
export const pgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const manifest: unknown = JSON.parse(fs.readFileSync(path.join(path.dirname(entry), "..", "package.json"), "utf8"))
  return typeof manifest === "object" && manifest !== null && "version" in manifest
    ? String(manifest.version)
    : "unknown"
}

const decodeStamp = Schema.decodeUnknownOption(Schema.parseJson(ImageStamp))

export const readStamp = (image: string): ImageStamp | undefined => {
  try {
    return Option.getOrUndefined(decodeStamp(fs.readFileSync(stampPath(image), "utf8")))
  } catch {
    return undefined
  }
}

/**
 * The image to start `dataDir` from: only for a directory with no database
 * yet, and an image made by the installed PGlite; otherwise undefined (an
 * existing database is opened, or a new one made by initdb).
 */
export const usableImage = (dataDir: string, image: string | undefined): string | undefined => {
  if (image === undefined || fs.existsSync(path.join(dataDir, "PG_VERSION")) || !fs.existsSync(image)) return undefined
  const stamp = readStamp(image)
  return stamp !== undefined && stamp.pglite === pgliteVersion() ? image : undefined
}

/**
 * Writes the image's files into `dataDir` as they are read (node-tar: gunzip
 * and tar streamed, a few chunks in memory, not the ~40 MB the directory
 * holds; entries outside the directory refused; PGlite's own `loadDataDir`
 * holds the archive, the tar and each file's copy at once, ~150 MB more at
 * the peak, and writes through its Emscripten file system, ~1 s more).
 * PG_VERSION, which makes the directory a database, is written last, by a
 * second pass over the archive: a load cut short leaves none, and the next
 * start loads again.
 */
export const unpackImage = async (image: string, dataDir: string): Promise<void> => {
  // PGlite's archive names its entries from the root ("/PG_VERSION"): node-tar writes them under cwd (and
  // refuses any ".." on its own).
  const isVersion = (entry: string) => entry.replace(/^(\.?\/)+/, "") === "PG_VERSION"
  await tar.x({ file: image, cwd: dataDir, filter: (entry) => !isVersion(entry) })
  await tar.x({ file: image, cwd: dataDir, filter: isVersion })
  if (!fs.existsSync(path.join(dataDir, "PG_VERSION"))) throw new Error("image: not a data directory")
}
