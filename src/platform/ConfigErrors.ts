import * as ConfigError from "effect/ConfigError"

/** A setting's problem: its name and what it must be. */
export interface SettingProblem {
  readonly setting: string
  readonly problem: string
}

/**
 * The leaves of a ConfigError, deduplicated. An `Or` (a fallback that also
 * failed) keeps its invalid branches: a setting that is present but wrong
 * matters more than the missing alternative it was tried against.
 */
export const settingProblems = (error: ConfigError.ConfigError): ReadonlyArray<SettingProblem> => {
  const leaves: Array<SettingProblem & { readonly missing: boolean }> = []
  const walk = (node: ConfigError.ConfigError): void => {
    switch (node._op) {
      case "And":
        walk(node.left)
        walk(node.right)
        return
      case "Or": {
        const before = leaves.length
        walk(node.left)
        walk(node.right)
        const added = leaves.splice(before)
        const invalid = added.filter((leaf) => !leaf.missing)
        leaves.push(...(invalid.length > 0 ? invalid : added))
        return
      }
      case "InvalidData":
      case "MissingData":
      case "SourceUnavailable":
      case "Unsupported":
        leaves.push({
          // A rule applied after a value was wrapped loses the path: its message names the setting itself.
          setting: node.path.join("_"),
          problem: node._op === "MissingData" ? "is required" : rephrase(node.message),
          missing: node._op === "MissingData"
        })
    }
  }
  walk(error)
  const seen = new Set<string>()
  return leaves
    .filter((leaf) => {
      const key = `${leaf.setting}\0${leaf.problem}`
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    .map(({ problem, setting }) => ({ setting, problem }))
}

const NAMES: Record<string, string> = { "an integer": "a whole number", "a boolean": "true or false" }

/** Effect's parse messages ("Expected an integer value but received abc"), in the same voice as ours. */
const rephrase = (message: string): string => {
  if (/^Expected a log level/.test(message)) return "must be all, trace, debug, info, warn, error, fatal or off"
  const parsed = /^Expected (an? .+?)(?: value)? but received/.exec(message)
  if (parsed) return `must be ${NAMES[parsed[1] ?? ""] ?? parsed[1]}`
  const oneOf = /^Expected one of \((.+)\) but received/.exec(message)
  if (oneOf) return `must be one of ${oneOf[1]}`
  return message
}

/** One line: every bad setting, what it must be, and where the settings are described. */
export const describeConfigError = (error: ConfigError.ConfigError): string =>
  `invalid configuration: ${settingProblems(error)
    .map(({ problem, setting }) => (setting === "" || problem.startsWith(setting) ? problem : `${setting} ${problem}`))
    .join("; ")} (README, Configuration: fix or unset it)`
