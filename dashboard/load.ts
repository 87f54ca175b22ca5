/** Loading a view's data: loading, loaded or failed, the stale request cancelled when its inputs change. */
import { useEffect, useState } from "preact/hooks"
import { Aborted, asCallError, type CallError } from "./api.js"

export type Loaded<A> =
  | { readonly state: "loading" }
  | { readonly state: "ok"; readonly value: A }
  | { readonly state: "error"; readonly error: CallError }

/**
 * Runs `load` whenever `key` changes (a string of every input), passing the
 * signal that cancels it when the key changes again or the view goes away.
 */
export const useLoad = <A>(key: string, load: (signal: AbortSignal) => Promise<A>): Loaded<A> => {
  const [loaded, setLoaded] = useState<{ key: string; value: Loaded<A> }>({ key, value: { state: "loading" } })
  useEffect(() => {
    const controller = new AbortController()
    setLoaded({ key, value: { state: "loading" } })
    load(controller.signal).then(
      (value) => {
        if (!controller.signal.aborted) setLoaded({ key, value: { state: "ok", value } })
      },
      (error: unknown) => {
        if (error instanceof Aborted || controller.signal.aborted) return
        setLoaded({ key, value: { state: "error", error: asCallError(error) } })
      }
    )
    return () => controller.abort()
    // The key stands for every input of `load`.
  }, [key])
  // Between a key change and the effect, the previous answer is not this key's.
  return loaded.key === key ? loaded.value : { state: "loading" }
}
