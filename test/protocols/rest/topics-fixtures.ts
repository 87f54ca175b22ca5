/**
 * What the topics suites (topics.test.ts, topics-model.test.ts) share:
 * threads posted through the workspace API, the project's topics read
 * through the project API, its ceiling set through the admin API.
 */
import { expect } from "vitest"
import { asProject } from "../../support/helpers.js"
import { admin, type Gateway, type UserClient } from "../../support/layers.js"

export interface TopicBody {
  id: string
  label: string
  keywords: Array<string>
  thread_count: number
  daily: Array<{ date: string; threads: number }>
  sample_threads: Array<{ id: string; title: string | null; last_message_at: string }>
}
export interface TopicListBody {
  topics: Array<TopicBody>
  computed_at: string | null
  window_from: string
  window_to: string
  ceiling: number
  unassigned: number
}

const textMessage = (role: "user" | "assistant", text: string) => ({ role, content: [{ type: "text", text }] })

/**
 * Posts a thread for each entry of `threads`, eight at a time: its user
 * messages, each followed by `answer` when one is given. Their ids, in the
 * order of `threads`.
 */
export const postThreads = async (
  client: UserClient,
  threads: ReadonlyArray<ReadonlyArray<string>>,
  answer?: string
): Promise<Array<string>> => {
  const one = async (texts: ReadonlyArray<string>) => {
    const made = await client("POST", "/threads", { body: { last_message_at: new Date().toISOString() } })
    expect(made.status, made.text).toBe(201)
    const threadId = made.body.thread_id as string
    let parent: string | null = null
    for (const text of texts) {
      const said = [textMessage("user", text), ...(answer === undefined ? [] : [textMessage("assistant", answer)])]
      for (const content of said) {
        const reply = await client("POST", `/threads/${threadId}/messages`, {
          body: { parent_id: parent, format: "svc/v0", content }
        })
        expect(reply.status, reply.text).toBe(201)
        parent = reply.body.message_id as string
      }
    }
    return threadId
  }
  const ids: Array<string> = []
  for (let i = 0; i < threads.length; i += 8) ids.push(...(await Promise.all(threads.slice(i, i + 8).map(one))))
  return ids
}

/** The project's topics, as GET /v1/projects/topics answers them. */
export const topicList = async (gateway: Gateway, apiKey: string): Promise<TopicListBody> => {
  const reply = await asProject(gateway, apiKey)("/topics")
  expect(reply.status, reply.text).toBe(200)
  return reply.body as TopicListBody
}

export const setTopicCeiling = async (gateway: Gateway, projectId: string, value: number) => {
  const reply = await admin(gateway)("PUT", `/projects/${projectId}/topic-ceiling`, { value })
  expect(reply.status, reply.text).toBe(200)
}
