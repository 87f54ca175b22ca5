/**
 * The views, a chunk of their own (views.ts loads it): the first script holds
 * what the first calls need (the client, its schemas, the session check, the
 * first view's calls: data.ts), and this chunk, preloaded beside it, is
 * evaluated while those calls are out.
 */
import type { Section, ViewProps } from "../router.js"
import { Overview } from "./Overview.js"
import { RunDetail } from "./RunDetail.js"
import { Runs } from "./Runs.js"
import { Scores } from "./Scores.js"
import { ThreadDetail } from "./ThreadDetail.js"
import { Threads } from "./Threads.js"
import { TraceDetail } from "./TraceDetail.js"
import { Traces } from "./Traces.js"

/** The view of a section, or of one of its items. */
export const View = (props: ViewProps & { readonly section: Section; readonly itemId: string | undefined }) => {
  const { section, itemId } = props
  if (section === "overview") return <Overview {...props} />
  if (section === "threads") return itemId ? <ThreadDetail {...props} threadId={itemId} /> : <Threads {...props} />
  if (section === "runs") return itemId ? <RunDetail {...props} runId={itemId} /> : <Runs {...props} />
  if (section === "traces") return itemId ? <TraceDetail {...props} traceId={itemId} /> : <Traces {...props} />
  return <Scores {...props} />
}
