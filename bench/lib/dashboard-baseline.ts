/**
 * The floor a view cannot beat: the same data fetched by plain `fetch()` from
 * inside a page of the dashboard's origin (so with the session cookie and the
 * page's CSP), each answer read with `.json()`, and nothing drawn. Each
 * figure is `performance.now()` around the calls, in the page.
 *
 * - threads: `GET /v1/dashboard/projects/{id}/threads?limit=50`;
 * - thread: `GET .../threads/{id}` and, beside it, `.../threads/{id}/messages`
 *   paged 200 at a time to the end (each page needs the previous one's last id);
 * - trace: `GET .../traces/{id}`.
 */
import type { Page } from "playwright-core"
import { inPage } from "./dashboard-browser.js"

export interface BaselineRun {
  readonly ms: number
  /** Rows, messages or spans received: checked against the seed. */
  readonly items: number
}

export type Baseline = (page: Page) => Promise<BaselineRun>

const HEADERS = { "x-svc-dashboard": "1" }

export const threadsBaseline =
  (projectId: string): Baseline =>
  (page) =>
    page.evaluate<BaselineRun>(
      inPage(
        async ({ projectId, headers }) => {
          const started = performance.now()
          const response = await fetch(`/v1/dashboard/projects/${projectId}/threads?limit=50`, { headers })
          const body = (await response.json()) as { threads: Array<unknown> }
          return { ms: performance.now() - started, items: body.threads.length }
        },
        { projectId, headers: HEADERS }
      )
    )

export const threadBaseline =
  (projectId: string, threadId: string): Baseline =>
  (page) =>
    page.evaluate<BaselineRun>(
      inPage(
        async ({ projectId, threadId, headers }) => {
          const base = `/v1/dashboard/projects/${projectId}/threads/${threadId}`
          const started = performance.now()
          const thread = fetch(base, { headers }).then((response) => response.json())
          let count = 0
          let after: string | undefined
          for (;;) {
            const query = after === undefined ? "limit=200" : `limit=200&after=${encodeURIComponent(after)}`
            const response = await fetch(`${base}/messages?${query}`, { headers })
            const page = (await response.json()) as { messages: Array<{ id: string }> }
            count += page.messages.length
            after = page.messages[page.messages.length - 1]?.id
            if (page.messages.length < 200 || after === undefined) break
          }
          await thread
          return { ms: performance.now() - started, items: count }
        },
        { projectId, threadId, headers: HEADERS }
      )
    )

export const traceBaseline =
  (projectId: string, traceId: string): Baseline =>
  (page) =>
    page.evaluate<BaselineRun>(
      inPage(
        async ({ projectId, traceId, headers }) => {
          const started = performance.now()
          const response = await fetch(`/v1/dashboard/projects/${projectId}/traces/${traceId}`, { headers })
          const body = (await response.json()) as { spans?: Array<unknown> }
          return { ms: performance.now() - started, items: body.spans?.length ?? 0 }
        },
        { projectId, traceId, headers: HEADERS }
      )
    )
