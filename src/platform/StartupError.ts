import * as Data from "effect/Data"

/**
 * Start-up cannot go on, for a reason its message says in one line (what,
 * which setting, how to fix): the composition root prints it as it is.
 */
export class StartupError extends Data.TaggedError("StartupError")<{ readonly message: string }> {}
