/**
 * What the Settings and API keys views share: a load that keeps showing its
 * last value while it runs again (after a change), a list's item named in a
 * refusal, and the retention presets in words.
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { RETENTION_PRESETS_DAYS } from "../../../schema/Settings.js"
import { type Load, type Loaded, useLoad } from "../../load.js"

/**
 * `useLoad` that can be asked to load again (`reload`, which resolves once
 * the new answer is on the page): meanwhile the last value stays shown, so
 * the forms under it keep their drafts and outcomes.
 */
export const useReloadable = <A,>(
  key: string,
  load: Load<A>
): { readonly loaded: Loaded<A>; readonly reload: () => Promise<void> } => {
  const [version, setVersion] = useState(0)
  const latest = useRef(0)
  const waiting = useRef<Array<{ readonly version: number; readonly resolve: () => void }>>([])
  const loaded = useLoad(`${key}#${version}`, load)
  const last = useRef<Loaded<A>>(loaded)
  if (loaded.state !== "loading") last.current = loaded
  useEffect(() => {
    if (loaded.state === "loading") return
    const done = waiting.current.filter((each) => each.version <= version)
    waiting.current = waiting.current.filter((each) => each.version > version)
    for (const each of done) each.resolve()
  }, [loaded, version])
  const reload = () =>
    new Promise<void>((resolve) => {
      latest.current += 1
      waiting.current.push({ version: latest.current, resolve })
      setVersion(latest.current)
    })
  return { loaded: loaded.state === "loading" && last.current.state === "ok" ? last.current : loaded, reload }
}

/** Where a list's item is wrong: the item itself, quoted. */
export const itemOf =
  (items: ReadonlyArray<string>) =>
  (path: ReadonlyArray<PropertyKey>): string => {
    const index = path.find((key): key is number => typeof key === "number")
    const item = index === undefined ? undefined : items[index]
    return item === undefined ? "" : `"${item}": `
  }

/** A textarea's lines: trimmed, the empty ones left out. */
export const linesOf = (text: string): Array<string> =>
  text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")

export type RetentionDays = (typeof RETENTION_PRESETS_DAYS)[number] | null

/** The retention select's choices: "forever", then each preset. */
export const RETENTION_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ["forever", "Forever"],
  ...RETENTION_PRESETS_DAYS.map((days): readonly [string, string] => [String(days), `${days} days`])
]

export const retentionWords = (days: RetentionDays): string => (days === null ? "forever" : `${days} days`)

/** The select's value for a retention, and back. */
export const retentionChoice = (days: RetentionDays): string => (days === null ? "forever" : String(days))
export const retentionOfChoice = (choice: string): RetentionDays =>
  RETENTION_PRESETS_DAYS.find((days) => String(days) === choice) ?? null
