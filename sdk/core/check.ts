import { CloudResponseError } from "./errors.js"

/**
 * Shape checks of successful answers (docs/decisions.md "Client library
 * (svc-client)"). Each failure names the field path and what was expected. They are
 * written out rather than decoded with Effect Schema so that the main entry
 * stays free of effect (a third of the bundle budget on its own); the types
 * they return come from schema/, so a changed wire shape fails to compile here.
 */
export type Json = Record<string, unknown>

const fail = (path: string, expectation: string): never => {
  throw CloudResponseError.field(path, expectation)
}

export const object = (value: unknown, path: string): Json =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : fail(path, "an object")

export const array = (value: unknown, path: string): ReadonlyArray<unknown> =>
  Array.isArray(value) ? value : fail(path, "an array")

export const string = (value: unknown, path: string): string =>
  typeof value === "string" ? value : fail(path, "a string")

export const nullableString = (value: unknown, path: string): string | null =>
  value === null || typeof value === "string" ? value : fail(path, "a string or null")

export const boolean = (value: unknown, path: string): boolean =>
  typeof value === "boolean" ? value : fail(path, "a boolean")

export const number = (value: unknown, path: string): number =>
  typeof value === "number" && Number.isFinite(value) ? value : fail(path, "a number")

export const integer = (value: unknown, path: string): number =>
  Number.isInteger(value) ? (value as number) : fail(path, "an integer")

/** A canonical ISO timestamp (as `Date#toISOString` writes it), as a Date. */
export const timestamp = (value: unknown, path: string): Date => {
  if (typeof value === "string") {
    const date = new Date(value)
    if (!Number.isNaN(date.getTime()) && date.toISOString() === value) return date
  }
  return fail(path, "an ISO 8601 timestamp")
}

/** A field that must be present, whatever its value. */
export const present = (body: Json, key: string, path: string): unknown =>
  Object.hasOwn(body, key) ? body[key] : fail(`${path}.${key}`, "to be present")

/** One of the given strings. */
export const oneOf = <const A extends string>(value: unknown, allowed: ReadonlyArray<A>, path: string): A =>
  allowed.includes(value as A) ? (value as A) : fail(path, allowed.map((one) => JSON.stringify(one)).join(" or "))
