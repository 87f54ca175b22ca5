/**
 * The `code` an error carries: a Node system error's (`ECONNREFUSED`,
 * `EADDRINUSE`) or a database's SQLSTATE (`23505`), when it is a string.
 */
export const errorCode = (cause: unknown): string | undefined =>
  typeof cause === "object" && cause !== null && "code" in cause && typeof cause.code === "string"
    ? cause.code
    : undefined
