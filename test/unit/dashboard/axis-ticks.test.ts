/** The trace waterfall's axis (dashboard/views/waterfall.ts): round times, about four steps across. */
import { describe, expect, it } from "vitest"
import { axisTicks } from "../../../dashboard/views/waterfall.js"

describe("the waterfall's axis ticks", () => {
  it("steps by 1, 2 or 5 times a power of ten, from 0 up to the trace's length", () => {
    expect(axisTicks(470)).toEqual([0, 200, 400])
    expect(axisTicks(1000)).toEqual([0, 500, 1000])
    expect(axisTicks(2_345)).toEqual([0, 1000, 2000])
    expect(axisTicks(83)).toEqual([0, 50])
    expect(axisTicks(3.7)).toEqual([0, 1, 2, 3])
    expect(axisTicks(0.01)).toEqual([0, 0.005, 0.01])
  })
  it("has at least one tick and never more than ten", () => {
    expect(axisTicks(0)).toEqual([0])
    for (const total of [0.01, 0.5, 7, 99, 101, 999, 12_345, 86_400_000]) {
      const ticks = axisTicks(total)
      expect(ticks.length).toBeGreaterThanOrEqual(2)
      expect(ticks.length).toBeLessThanOrEqual(10)
      expect(ticks.at(-1)).toBeLessThanOrEqual(total * (1 + 1e-9))
    }
  })
})
