import { describe, expect, it } from "vitest"
import { newId, ulid } from "../../../src/platform/Ids.js"

const CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
const timeOf = (id: string) => [...id.slice(0, 10)].reduce((time, char) => time * 32 + CROCKFORD.indexOf(char), 0)

describe("ids", () => {
  it("are unique and sort in creation order, also within one millisecond", () => {
    const ids = Array.from({ length: 20_000 }, () => newId("msg"))
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(ids)
    expect(ids.every((id) => id.length <= 48 && /^msg_[0-9A-HJKMNP-TV-Z]{26}$/.test(id))).toBe(true)
  })

  it("encode the time they were made", () => {
    const before = Date.now()
    const id = ulid()
    expect(timeOf(id)).toBeGreaterThanOrEqual(before)
    expect(timeOf(id)).toBeLessThanOrEqual(Date.now())
    expect(timeOf(ulid(Date.UTC(2026, 10, 22)))).toBeGreaterThanOrEqual(Date.UTC(2026, 10, 22))
  })
})
