import { randomFillSync } from "node:crypto"

/**
 * Prefixed ULIDs: 48-bit millisecond time + 80 random bits in Crockford base32,
 * monotonic within a process, so ids sort by creation time (docs/decisions.md
 * "Wire") and `after=<id>` cursors survive deletion of the row they name.
 */
/** Crockford base 32, the digits of every id (in order: an id's text sorts as its value). */
export const ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

let lastTime = -1
const lastRandom = new Uint8Array(10)

// Random bytes drawn 4 KiB at a time: one system call per ~400 ids.
const pool = new Uint8Array(4096)
let poolOffset = pool.length
const fillRandom = (target: Uint8Array) => {
  if (poolOffset + target.length > pool.length) {
    randomFillSync(pool)
    poolOffset = 0
  }
  target.set(pool.subarray(poolOffset, poolOffset + target.length))
  poolOffset += target.length
}

const encodeTime = (time: number): string => {
  let out = ""
  let t = time
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out
    t = Math.floor(t / 32)
  }
  return out
}

const encodeRandom = (bytes: Uint8Array): string => {
  // 80 bits -> 16 characters of 5 bits.
  let out = ""
  let buffer = 0
  let bits = 0
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte
    bits += 8
    while (bits >= 5) {
      out += ALPHABET[(buffer >> (bits - 5)) & 31]
      bits -= 5
    }
    buffer &= (1 << bits) - 1
  }
  return out
}

const increment = (bytes: Uint8Array): void => {
  for (let i = bytes.length - 1; i >= 0; i--) {
    const next = (bytes[i] ?? 0) + 1
    bytes[i] = next & 0xff
    if (next <= 0xff) return
  }
}

export const ulid = (now: number = Date.now()): string => {
  if (now <= lastTime) {
    increment(lastRandom)
  } else {
    lastTime = now
    fillRandom(lastRandom)
  }
  return encodeTime(lastTime) + encodeRandom(lastRandom)
}

export const newId = (
  prefix: "proj" | "key" | "thread" | "msg" | "fb" | "rt" | "run" | "score" | "evt" | "wh"
): string => `${prefix}_${ulid()}`

/**
 * The lowest id of `prefix` made at `ms` or later: every such id sorts at or
 * above it, so a time-sortable primary key bounds a query by time.
 */
export const idFloor = (prefix: string, ms: number): string => `${prefix}_${encodeTime(Math.max(0, Math.floor(ms)))}`
