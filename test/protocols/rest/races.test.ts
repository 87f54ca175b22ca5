import { beforeAll, describe, expect, it } from "vitest"
import { asUser, createProject, stores, type UserClient, useGateway } from "../../layers.js"
import { newMessage, newThread } from "./helpers.js"

describe.each(stores)("concurrent writes ($name)", (storeUnderTest) => {
  const handle = useGateway(storeUnderTest)
  let alice: UserClient

  beforeAll(async () => {
    const project = await createProject(handle.current)
    alice = asUser(handle.current, project.api_key, "alice", "ws-race")
  })

  it("appends, feedback and deletes racing on the same threads answer 201/200/204/404, never 500", async () => {
    const statuses: Array<number> = []
    for (let round = 0; round < 10; round++) {
      const threadId = await newThread(alice)
      const root = await newMessage(alice, threadId, { parent: null, content: { n: 0 } })
      const replies = await Promise.all([
        ...Array.from({ length: 6 }, (_, n) =>
          alice("POST", `/threads/${threadId}/messages`, {
            body: { parent_id: root, format: "svc/v0", content: { n } }
          })
        ),
        alice("POST", `/threads/${threadId}/messages/${root}/feedback`, { body: { type: "positive" } }),
        alice("DELETE", `/threads/${threadId}`),
        alice("POST", `/threads/${threadId}/messages/${root}/feedback`, { body: { type: "negative" } })
      ])
      statuses.push(...replies.map((reply) => reply.status))
      for (const reply of replies) {
        if (reply.status === 404) expect(reply.body.error).toBe("not_found")
      }
      expect((await alice("GET", `/threads/${threadId}`)).status).toBe(404)
    }
    expect(
      statuses.every((status) => [200, 201, 204, 404].includes(status)),
      statuses.join(",")
    ).toBe(true)
    expect(statuses.filter((status) => status === 204)).toHaveLength(10)
  })
})
