import { describe, expect, it } from "vitest"
import { TtlCache } from "../../../src/platform/TtlCache.js"

describe("TtlCache", () => {
  it("answers a value until it expires, then not (but keeps it as stale)", () => {
    const cache = new TtlCache<string, number>(10)
    cache.set("a", 1, Date.now() + 60_000)
    cache.set("b", 2, Date.now() - 1)
    expect(cache.get("a")).toBe(1)
    expect(cache.get("b")).toBeUndefined()
    expect(cache.stale("b")).toBe(2)
    cache.delete("a")
    expect(cache.get("a")).toBeUndefined()
  })

  it("when full drops only the oldest entry", () => {
    const cache = new TtlCache<number, number>(3)
    const later = Date.now() + 60_000
    for (const key of [1, 2, 3]) cache.set(key, key, later)
    cache.set(1, 10, later) // refreshed: now the newest
    cache.set(4, 4, later)
    expect([1, 2, 3, 4].map((key) => cache.get(key))).toEqual([10, undefined, 3, 4])
  })
})
