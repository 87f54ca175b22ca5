/**
 * The page's first script, run before the main one (index.html lists it
 * first): while the libraries' modules are evaluated, an error carries no
 * stack trace, and main.tsx puts the limit back before the app runs.
 *
 * Effect reads `new Error().stack` once while its modules load (effect's
 * Utils, to see whether function names survive minifying). Formatting that
 * trace needs source positions for the function running it, here the whole
 * script's top level, and V8 gets them by parsing the script again: tens of
 * milliseconds in a new tab. With no frames there is nothing to format.
 * (With DevTools attached, as under Playwright, every error also takes a
 * detailed trace whatever this limit says, and the parse happens anyway.)
 */
declare global {
  interface ErrorConstructor {
    /** V8's (Chromium's); other engines may have none. */
    stackTraceLimit?: number
  }
  /** Error.stackTraceLimit as it was before this script set it to 0. */
  var svcStackTraceLimit: number | undefined
}

if (typeof Error.stackTraceLimit === "number") {
  globalThis.svcStackTraceLimit = Error.stackTraceLimit
  Error.stackTraceLimit = 0
}

export {}
