/**
 * The deterministic side of evaluators: which pattern is kept, which category
 * a text falls in, and which targets the sampling rate takes.
 *
 * Patterns are RE2 (re2js, a pure TypeScript port): matching runs every
 * alternative at once, in time linear in the text, so there is no
 * catastrophic backtracking to guard against. What RE2 cannot express
 * (backreferences, lookaround) does not compile and is refused; what costs
 * too much per character of text (a large compiled program) is refused too
 * (docs/decisions.md "Evaluators").
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import { RE2JS, RE2JSSyntaxException } from "re2js"
import { EVALUATOR_LIMITS, type EvaluatorCategory } from "../../schema/Evaluator.js"
import { yieldToEventLoop } from "../platform/jobs/EventLoop.js"

/**
 * The largest compiled program a pattern may have, in RE2 instructions. A
 * match costs up to (characters read) x (instructions): at most 4,000 x 250.
 * Patterns written by hand take 5 to 80; counted repeats are what grow
 * programs (`[\s\S]{1000}` is 1,003).
 */
export const PATTERN_MAX_INSTRUCTIONS = 250

/** The pattern is case-insensitive, like keywords (RE2 folds case over Unicode, as JavaScript's `iu` does). */
const FLAGS = RE2JS.CASE_INSENSITIVE

/** What RE2's parser says, in words for the author of a JavaScript-style pattern. */
const syntaxProblem = (error: RE2JSSyntaxException): string => {
  const at = (error.input ?? "").replace(/^\(\?i\)/, "")
  if (error.error === "invalid escape sequence" && /^\\[1-9k]/.test(at)) {
    return `a backreference (\`${at}\`) is not supported: RE2 has none`
  }
  if (error.error === "invalid or unsupported Perl syntax" && /^\(\?[=!]/.test(at)) {
    return `a lookahead (\`${at.slice(0, 3)}\`) is not supported: RE2 has no lookaround`
  }
  if (error.error === "invalid named capture" && /^\(\?<[=!]/.test(at)) {
    return `a lookbehind (\`${at.slice(0, 4)}\`) is not supported: RE2 has no lookaround`
  }
  if (error.error === "invalid escape sequence" && at === "\\u") {
    return "`\\u` is JavaScript syntax: write a code point as `\\x{e9}` (RE2)"
  }
  return at === "" ? error.error : `${error.error}: \`${at}\``
}

/** The compiled pattern, or why it is refused. */
export const compilePattern = (pattern: string): { readonly regex: RE2JS } | { readonly problem: string } => {
  let regex: RE2JS
  try {
    regex = RE2JS.compile(pattern, FLAGS)
  } catch (error) {
    const why =
      error instanceof RE2JSSyntaxException
        ? syntaxProblem(error)
        : error instanceof Error
          ? error.message
          : String(error)
    return { problem: `the pattern does not compile as RE2: ${why}` }
  }
  const size = regex.programSize()
  if (size > PATTERN_MAX_INSTRUCTIONS) {
    return {
      problem:
        `the pattern is too large: it compiles to ${size} RE2 instructions, at most ${PATTERN_MAX_INSTRUCTIONS} ` +
        "(matching time grows with it; counted repeats such as {1000} are what make it large)"
    }
  }
  return { regex }
}

/** Why a pattern is refused, or undefined when it is kept. */
export const patternProblem = (pattern: string): string | undefined => {
  const compiled = compilePattern(pattern)
  return "problem" in compiled ? compiled.problem : undefined
}

/** A category chosen, and why (the score's comment). */
export interface Match {
  readonly category: string
  readonly reason: string
}

/** An evaluator's categories with their patterns compiled, for one pass over its targets. */
export interface CompiledRules {
  readonly categories: ReadonlyArray<{
    readonly category: EvaluatorCategory
    /** Undefined: no pattern, or one stored before RE2 that RE2 refuses (it never matches). */
    readonly regex: RE2JS | undefined
  }>
  /** Categories whose stored pattern RE2 refuses, and why. */
  readonly refused: ReadonlyArray<{ readonly category: string; readonly problem: string }>
}

/** Compiles an evaluator's patterns once for all its targets of a pass (RE2's DFA cache is per compiled pattern). */
export const compileRules = (categories: ReadonlyArray<EvaluatorCategory>): CompiledRules => {
  const refused: Array<{ category: string; problem: string }> = []
  const compiled = categories.map((category) => {
    if (category.pattern === undefined) return { category, regex: undefined }
    const result = compilePattern(category.pattern)
    if ("problem" in result) {
      refused.push({ category: category.name, problem: result.problem })
      return { category, regex: undefined }
    }
    return { category, regex: result.regex }
  })
  return { categories: compiled, refused }
}

/**
 * The first category (in order) whose keywords or pattern match `text` (its
 * first EVALUATOR_LIMITS.inputMaxChars). Each match is linear and bounded
 * (PATTERN_MAX_INSTRUCTIONS); between two, the event loop gets its turn when
 * it has waited SLICE_MS.
 */
export const matchRules = (rules: CompiledRules, text: string): Effect.Effect<Match | undefined> =>
  Effect.gen(function* () {
    const input = text.slice(0, EVALUATOR_LIMITS.inputMaxChars)
    const lower = input.toLowerCase()
    for (const { category, regex } of rules.categories) {
      const keyword = category.keywords?.find((word) => lower.includes(word.toLowerCase()))
      if (keyword !== undefined) return { category: category.name, reason: `keyword "${keyword}" matched` }
      if (regex !== undefined) {
        yield* yieldToEventLoop
        if (regex.test(input)) return { category: category.name, reason: `pattern /${category.pattern}/ matched` }
      }
    }
    return undefined
  })

/** Whether the sampling rate takes this target: a hash of the evaluator and target ids, so every pass agrees. */
export const sampled = (rate: number, evaluatorId: string, targetId: string): boolean => {
  if (rate >= 1) return true
  if (rate <= 0) return false
  const hash = createHash("sha256").update(`${evaluatorId}:${targetId}`).digest()
  return hash.readUInt32BE(0) / 2 ** 32 < rate
}
