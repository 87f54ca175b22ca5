/**
 * The seed: migrations (a first gateway start), a project, background rows
 * and the threads each workload works on (bench/workloads.ts Fixture): one
 * per connection for append_message, one shared by every connection for
 * append_one_thread, 64 for append_64_threads, one for append_one_conn.
 */
import { type Fixture, headersFor, type ThreadRef, USER, WORKSPACE } from "../workloads.js"
import { createPgbenchTables, seedBackground, seedRuns, vacuumAnalyze } from "./db.js"
import { CONTENT_JSON, FORMAT, runDetailJson } from "./payload.js"
import { adminToken, startGateway } from "./servers.js"
import { log, settings } from "./settings.js"

const call = async (
  baseUrl: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown
): Promise<Record<string, unknown>> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`)
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== "object" || parsed === null) throw new Error(`${method} ${path}: unexpected ${text}`)
  return parsed as Record<string, unknown>
}

const stringField = (record: Record<string, unknown>, key: string): string => {
  const value = record[key]
  if (typeof value !== "string") throw new Error(`expected a string ${key} in ${JSON.stringify(record)}`)
  return value
}

/** Migrations (a first gateway start), a project, background rows and the workload threads. */
export const seed = async (databaseUrl: string): Promise<Fixture> => {
  const gateway = await startGateway(databaseUrl, { label: "seed", logLevel: "Warn", profile: false })
  try {
    const createProject = (name: string) =>
      call(gateway.baseUrl, "POST", "/v1/admin/projects", { authorization: `Bearer ${adminToken}` }, { name })
    const project = await createProject("bench")
    const projectId = stringField(project, "project_id")
    const apiKey = stringField(project, "api_key")
    log(`seed: ${settings.seedThreads} background threads x ${settings.seedMessagesPerThread} messages`)
    await seedBackground(databaseUrl, projectId, settings.seedThreads, settings.seedMessagesPerThread)
    const headers = headersFor({ apiKey }, false)
    const newThread = async (extra: Record<string, unknown> = {}) =>
      stringField(
        await call(gateway.baseUrl, "POST", "/v1/threads", headers, {
          last_message_at: new Date().toISOString(),
          ...extra
        }),
        "thread_id"
      )
    const listThreadId = await newThread()
    log(`seed: ${settings.listThreadMessages} messages in ${listThreadId}`)
    let parent: string | null = null
    for (let i = 0; i < settings.listThreadMessages; i++) {
      const reply = await call(gateway.baseUrl, "POST", `/v1/threads/${listThreadId}/messages`, headers, {
        parent_id: parent,
        format: FORMAT,
        content: JSON.parse(CONTENT_JSON)
      })
      parent = stringField(reply, "message_id")
    }
    const appendThreadIds: Array<string> = []
    for (let i = 0; i < settings.connections; i++) appendThreadIds.push(await newThread())
    const sharedThreadId = await newThread()
    const spreadThreadIds: Array<string> = []
    for (let i = 0; i < settings.spreadThreads; i++) spreadThreadIds.push(await newThread())
    const oneConnThreadId = await newThread()
    // Threads as an app keeps them: a title, an external id and a little metadata.
    const getThreadIds: Array<string> = []
    for (let i = 0; i < settings.getThreads; i++) {
      getThreadIds.push(
        await newThread({
          title: `Quarterly revenue by region, draft ${i + 1}`,
          external_id: `conv-${1000 + i}`,
          metadata: { source: "bench", channel: "web", tags: ["research", "draft"], turn: i }
        })
      )
    }
    const runsProject = await createProject("bench-runs")
    const runsProjectId = stringField(runsProject, "project_id")
    log(`seed: ${settings.seedRuns} runs of ${Math.round(runDetailJson().length / 1024)} KB detail in ${runsProjectId}`)
    await seedRuns(databaseUrl, runsProjectId, settings.seedRuns, runDetailJson())
    // The ids and workspaces lib/db.ts seedBackground gives the background threads.
    const reportThreads: Array<ThreadRef> =
      settings.seedThreads > 0
        ? Array.from({ length: settings.seedThreads }, (_, i) => ({
            threadId: `thread_00SEED${String(i + 1).padStart(8, "0")}`,
            workspaceId: `ws_seed_${(i + 1) % 50}`,
            userId: `user_seed_${(i + 1) % 500}`
          }))
        : appendThreadIds.map((threadId) => ({ threadId, workspaceId: WORKSPACE, userId: USER }))
    await createPgbenchTables(databaseUrl)
    await vacuumAnalyze(databaseUrl)
    return {
      databaseUrl,
      projectId,
      apiKey,
      listThreadId,
      appendThreadIds,
      sharedThreadId,
      spreadThreadIds,
      oneConnThreadId,
      getThreadIds,
      reportThreads,
      runsProject: { projectId: runsProjectId, apiKey: stringField(runsProject, "api_key") }
    }
  } finally {
    await gateway.child.stop()
  }
}
