/**
 * The views, a chunk of their own (views.ts loads it): the first script holds
 * what the first calls need (the client, its schemas, the session check, the
 * first view's calls: data.ts), and this chunk, preloaded beside it, is
 * evaluated while those calls are out. The operating views are a further
 * chunk, loaded when one is opened.
 */
import { lazyChunk } from "../load.js"
import { isOperateSection, type OperateSection, type Section, type ViewProps } from "../router.js"
import { ErrorText, Loading } from "../ui.js"
import { Overview } from "./Overview.js"
import { RunDetail } from "./RunDetail.js"
import { Runs } from "./Runs.js"
import { Scores } from "./Scores.js"
import { ThreadDetail } from "./ThreadDetail.js"
import { Threads } from "./Threads.js"
import { Topics } from "./Topics.js"
import { TraceDetail } from "./TraceDetail.js"
import { Traces } from "./Traces.js"

const operate = lazyChunk(() => import("./operate/index.js"), "its operating views")

/** The view of a section, or of one of its items. */
export const View = (props: ViewProps & { readonly section: Section; readonly itemId: string | undefined }) => {
  const { section, itemId } = props
  if (isOperateSection(section)) return <Operating {...props} section={section} />
  if (section === "overview") return <Overview {...props} />
  if (section === "threads") return itemId ? <ThreadDetail {...props} threadId={itemId} /> : <Threads {...props} />
  if (section === "runs") return itemId ? <RunDetail {...props} runId={itemId} /> : <Runs {...props} />
  if (section === "traces") return itemId ? <TraceDetail {...props} traceId={itemId} /> : <Traces {...props} />
  if (section === "topics") return <Topics {...props} />
  return <Scores {...props} />
}

const Operating = (props: ViewProps & { readonly section: OperateSection }) => {
  const chunk = operate.use()
  if (chunk.state === "loading") return <Loading what="the view" />
  if (chunk.state === "error") return <ErrorText error={chunk.error} />
  return <chunk.value.OperateView {...props} />
}
