import * as fs from "node:fs"
import * as path from "node:path"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"

export class DataDirLocked extends Data.TaggedError("DataDirLocked")<{
  readonly dataDir: string
  readonly pid: number
}> {
  override get message() {
    return `the embedded store in ${this.dataDir} is in use by process ${this.pid}; stop it first, or use the admin HTTP API`
  }
}

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/**
 * PGlite is a single-process database: two processes on one data directory
 * corrupt it. The holder writes its pid to DATA_DIR/gateway.lock; a lock left by
 * a dead process is taken over.
 */
export const holdDataDirLock = (dataDir: string) =>
  Effect.acquireRelease(
    Effect.gen(function* () {
      fs.mkdirSync(dataDir, { recursive: true })
      const file = path.join(dataDir, "gateway.lock")
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          fs.writeFileSync(file, String(process.pid), { flag: "wx" })
          return file
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
          const pid = Number(fs.readFileSync(file, "utf8"))
          if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
            return yield* new DataDirLocked({ dataDir, pid })
          }
          fs.rmSync(file, { force: true })
        }
      }
      return yield* new DataDirLocked({ dataDir, pid: -1 })
    }),
    (file) => Effect.sync(() => fs.rmSync(file, { force: true }))
  )
