/**
 * The values the OpenAPI document shows as examples (Schema `examples`
 * annotations): well-formed ids of things that do not exist, so a docs page's
 * request built from them is valid (an unknown id answers 404, never 400).
 */
export const ExampleIds = {
  project: "proj_01M80KEP26YA9DZXRJENQJN9YP",
  apiKey: "key_01M80KEP26YA9DZXRJENQJN9YP",
  thread: "thread_01M80KEP26YA9DZXRJENQJN9YP",
  message: "msg_01M80KEP26YA9DZXRJENQJN9YP",
  run: "run_01M80KEP26YA9DZXRJENQJN9YP",
  /** A topic id: `topic_` and 16 hex digits (a hash of its first members). */
  topic: "topic_3f2a9c1b7d4e5f60",
  /** A trace id (32 lowercase hex digits) that no example export uses. */
  trace: "4bf92f3577b34da6a3ce929d0e0e4736",
  /** An attachment key: `{project}/{workspace sha-256}/{ulid}/{name}`. */
  attachmentKey:
    "proj_01M80KEP26YA9DZXRJENQJN9YP/RcANTTHMSQNLmqss0738WM9L7Jzmt_pZ--6r3i4u2dE/01M80KEP26YA9DZXRJENQJN9YP/photo.png"
} as const

export const ExampleTime = new Date("2026-11-22T10:15:30.123Z")

/**
 * The annotations of a string parameter's example. Ids and dates are refined
 * strings, whose JSON Schema is their base string's unless a `jsonSchema`
 * annotation says more: it carries the example.
 */
export const exampleOf = (
  value: string
): { readonly examples: readonly [string]; readonly jsonSchema: { readonly examples: readonly [string] } } => ({
  examples: [value],
  jsonSchema: { examples: [value] }
})
