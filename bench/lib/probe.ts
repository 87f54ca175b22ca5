/**
 * Preloaded into the servers under test (`node --import tsx --import
 * ./bench/lib/probe.ts ...`): every 250 ms it overwrites BENCH_PROBE_FILE with
 * the process's cumulative event-loop idle and active milliseconds, so the
 * bench can tell a saturated event loop (utilization near 1) from one waiting
 * on the database or on timers. Costs one small file write per 250 ms.
 */
import { renameSync, writeFileSync } from "node:fs"
import { performance } from "node:perf_hooks"

const file = process.env.BENCH_PROBE_FILE
if (file !== undefined && file !== "") {
  const write = () => {
    const elu = performance.eventLoopUtilization()
    // Whole-file replace, so a reader never sees a half-written line.
    writeFileSync(`${file}.tmp`, `${elu.idle} ${elu.active}\n`)
    renameSync(`${file}.tmp`, file)
  }
  write()
  setInterval(write, 250).unref()
}
