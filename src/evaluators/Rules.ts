/**
 * The deterministic side of evaluators: which pattern is safe to keep, which
 * category a text falls in, and which targets the sampling rate takes.
 */
import { createHash } from "node:crypto"
import * as vm from "node:vm"
import { EVALUATOR_LIMITS, type EvaluatorCategory } from "../../schema/Evaluator.js"

/** Flags of every pattern: case-insensitive, like keywords, and Unicode-aware. */
const FLAGS = "iu"
/** One pattern's match over one text may take this long; past it the category does not match. */
export const MATCH_TIMEOUT_MS = 50

/**
 * Why a pattern is refused, or undefined when it is kept: it must compile,
 * refer back to no group, and repeat no group that itself repeats (a star
 * height above 1, as in `(a+)+`, the shape of catastrophic backtracking).
 * The check is conservative (safe-regex's rule); matching is bounded anyway.
 */
export const patternProblem = (pattern: string): string | undefined => {
  try {
    new RegExp(pattern, FLAGS)
  } catch (error) {
    return `the pattern does not compile: ${error instanceof Error ? error.message : String(error)}`
  }
  if (/\\[1-9]|\\k</.test(pattern)) return "the pattern refers back to a group (backreferences are not allowed)"
  // One frame per open group: whether something inside it repeats.
  const frames: Array<{ repeats: boolean }> = [{ repeats: false }]
  /** The length of a quantifier at `at`, and whether it repeats (more than once). */
  const quantifier = (at: number): { length: number; repeats: boolean } | undefined => {
    const char = pattern[at]
    let length = 0
    let repeats = false
    if (char === "*" || char === "+") {
      length = 1
      repeats = true
    } else if (char === "?") {
      length = 1
    } else if (char === "{") {
      const counted = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(at))
      if (counted === null) return undefined
      length = counted[0].length
      const max = counted[2] === undefined ? Number(counted[1]) : counted[3] === "" ? Infinity : Number(counted[3])
      repeats = max > 1
    } else return undefined
    if (pattern[at + length] === "?") length += 1
    return { length, repeats }
  }
  let at = 0
  while (at < pattern.length) {
    const char = pattern[at]
    const frame = frames[frames.length - 1] ?? { repeats: false }
    if (char === "\\") {
      at += 2
    } else if (char === "[") {
      at += 1
      while (at < pattern.length && pattern[at] !== "]") at += pattern[at] === "\\" ? 2 : 1
      at += 1
    } else if (char === "(") {
      frames.push({ repeats: false })
      at += 1
      continue
    } else if (char === ")") {
      const closed = frames.pop() ?? { repeats: false }
      const parent = frames[frames.length - 1] ?? { repeats: false }
      const after = quantifier(at + 1)
      if (after?.repeats && closed.repeats) {
        return "the pattern repeats a group that itself repeats (catastrophic backtracking)"
      }
      parent.repeats ||= closed.repeats || (after?.repeats ?? false)
      at += 1 + (after?.length ?? 0)
      continue
    } else {
      at += 1
    }
    const after = quantifier(at)
    if (after !== undefined) {
      frame.repeats ||= after.repeats
      at += after.length
    }
  }
  return undefined
}

/** A category chosen, and why (the score's comment). */
export interface Match {
  readonly category: string
  readonly reason: string
}

// One context for every bounded match: the timeout interrupts a match that runs too long.
const context = vm.createContext({ re: /$^/, input: "" })
const test = new vm.Script("re.test(input)")

const patternMatches = (pattern: string, input: string): boolean => {
  context.re = new RegExp(pattern, FLAGS)
  context.input = input
  try {
    return test.runInContext(context, { timeout: MATCH_TIMEOUT_MS }) === true
  } catch {
    return false
  }
}

/** The first category (in order) whose keywords or pattern match `text` (its first EVALUATOR_LIMITS.inputMaxChars). */
export const matchRules = (categories: ReadonlyArray<EvaluatorCategory>, text: string): Match | undefined => {
  const input = text.slice(0, EVALUATOR_LIMITS.inputMaxChars)
  const lower = input.toLowerCase()
  for (const category of categories) {
    const keyword = category.keywords?.find((word) => lower.includes(word.toLowerCase()))
    if (keyword !== undefined) return { category: category.name, reason: `keyword "${keyword}" matched` }
    if (category.pattern !== undefined && patternMatches(category.pattern, input)) {
      return { category: category.name, reason: `pattern /${category.pattern}/ matched` }
    }
  }
  return undefined
}

/** Whether the sampling rate takes this target: a hash of the evaluator and target ids, so every pass agrees. */
export const sampled = (rate: number, evaluatorId: string, targetId: string): boolean => {
  if (rate >= 1) return true
  if (rate <= 0) return false
  const hash = createHash("sha256").update(`${evaluatorId}:${targetId}`).digest()
  return hash.readUInt32BE(0) / 2 ** 32 < rate
}
