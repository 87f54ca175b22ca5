/**
 * Loading a view's data: loading, loaded or failed, the stale request
 * cancelled when its inputs change. A load may report what it has so far
 * (a thread's messages, page by page), and may have been started before the
 * view was drawn (at the page's start, as soon as the session answers: `Early`).
 */
import { useEffect, useRef, useState } from "preact/hooks"
import { Aborted, asCallError, type CallError } from "./api.js"

export type Loaded<A> =
  | { readonly state: "loading" }
  | { readonly state: "ok"; readonly value: A }
  | { readonly state: "error"; readonly error: CallError }

/** A load's state, and whether it is over (an "ok" value may be partial until then). */
export interface Progress<A> {
  readonly loaded: Loaded<A>
  readonly done: boolean
}

/** Loads a value, cancelled by `signal`; `report` shows a partial value meanwhile (optional). */
export type Load<A> = (signal: AbortSignal, report: (partial: A) => void) => Promise<A>

const LOADING: Progress<never> = { loaded: { state: "loading" }, done: false }

/** One run of a load for one key: its latest state, told to whoever listens. */
class Feed<A> {
  private readonly controller = new AbortController()
  private readonly listeners = new Set<() => void>()
  progress: Progress<A> = LOADING

  constructor(
    readonly key: string,
    load: Load<A>
  ) {
    const { signal } = this.controller
    load(signal, (partial) => {
      if (!signal.aborted) this.set({ loaded: { state: "ok", value: partial }, done: false })
    }).then(
      (value) => {
        if (!signal.aborted) this.set({ loaded: { state: "ok", value }, done: true })
      },
      (error: unknown) => {
        if (error instanceof Aborted || signal.aborted) return
        this.set({ loaded: { state: "error", error: asCallError(error) }, done: true })
      }
    )
  }

  private set(progress: Progress<A>) {
    this.progress = progress
    for (const listener of this.listeners) listener()
  }

  listen(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  abort() {
    this.controller.abort()
  }
}

/**
 * A load started before its view is drawn: the page's first view starts its
 * calls as soon as the session check answers, and the view, drawn after,
 * takes them over instead of asking again. Only the view's first draw may
 * take it, and only for the same key; anything else cancels it.
 */
export class Early<A> {
  private feed: Feed<A> | undefined

  start(key: string, load: Load<A>): void {
    this.feed?.abort()
    this.feed = new Feed(key, load)
  }

  take(key: string): Feed<A> | undefined {
    const feed = this.feed
    this.feed = undefined
    if (feed?.key === key) return feed
    feed?.abort()
    return undefined
  }
}

/**
 * Runs `load` whenever `key` changes (a string of every input), passing the
 * signal that cancels it when the key changes again or the view goes away;
 * the partial values it reports are shown as they come. No key: not yet
 * (loading, and nothing asked).
 */
export const useProgress = <A>(key: string | undefined, load: Load<A>, early?: Early<A>): Progress<A> => {
  const taken = useRef<Feed<A> | undefined>(undefined)
  const [shown, setShown] = useState<{ readonly key: string | undefined; readonly progress: Progress<A> }>(() => {
    taken.current = key === undefined ? undefined : early?.take(key)
    return { key, progress: taken.current?.progress ?? LOADING }
  })
  useEffect(() => {
    const adopted = taken.current
    taken.current = undefined
    if (key === undefined) return
    const feed = adopted?.key === key ? adopted : new Feed(key, load)
    if (adopted !== undefined && adopted !== feed) adopted.abort()
    const update = () =>
      setShown((now) => (now.key === key && now.progress === feed.progress ? now : { key, progress: feed.progress }))
    const stop = feed.listen(update)
    update()
    return () => {
      stop()
      feed.abort()
    }
    // The key stands for every input of `load`.
  }, [key])
  // Between a key change and the effect, the previous answer is not this key's.
  return shown.key === key ? shown.progress : LOADING
}

/** useProgress for a load that answers once: loading, loaded or failed. */
export const useLoad = <A>(key: string | undefined, load: Load<A>, early?: Early<A>): Loaded<A> =>
  useProgress(key, load, early).loaded

/** A chunk loaded on the first `load()` (again after a failure), and a hook that draws again once it is there. */
export const lazyChunk = <M>(importChunk: () => Promise<M>, what: string) => {
  let loaded: Loaded<M> = { state: "loading" }
  let loading: Promise<M> | undefined
  const load = (): Promise<M> => {
    loading ??= importChunk().then(
      (chunk) => {
        loaded = { state: "ok", value: chunk }
        return chunk
      },
      (error: unknown) => {
        loading = undefined
        loaded = {
          state: "error",
          error: { status: undefined, message: `The page could not load ${what}: reload it.`, unauthorized: false }
        }
        throw error
      }
    )
    return loading
  }
  const use = (): Loaded<M> => {
    const [, setVersion] = useState(0)
    useEffect(() => {
      if (loaded.state === "ok") return
      const redraw = () => setVersion((n) => n + 1)
      load().then(redraw, redraw)
    }, [])
    return loaded
  }
  return { load, use }
}
