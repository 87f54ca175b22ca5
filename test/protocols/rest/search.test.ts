/**
 * Full-text search through real HTTP: GET /v1/projects/search (API key, the
 * whole project) and GET /v1/threads/search (the caller's workspace). Words,
 * phrases, exclusions and OR; Chinese, Japanese and Arabic text; a title
 * match ranked above a passing mention; snippets with highlights; edits and
 * deletions reflected; other workspaces and projects never returned.
 */
import { beforeAll, describe, expect, it } from "vitest"
import { asAnonymous, asJwtUser } from "../../support/helpers.js"
import { asUser, call, createProject, type Reply, stores, useGateway } from "../../support/layers.js"

interface Hit {
  readonly thread: { readonly id: string; readonly workspace_id: string; readonly title: string | null }
  readonly score: number
  readonly message_id: string | null
  readonly snippet: { readonly text: string; readonly highlights: ReadonlyArray<readonly [number, number]> }
}

describe.each(stores)("full-text search ($name)", (storeUnderTest) => {
  const gateway = useGateway(storeUnderTest)
  let apiKey: string
  let projectId: string
  let otherKey: string
  let user: ReturnType<typeof asUser>
  let stranger: ReturnType<typeof asUser>
  const ids: Record<string, string> = {}
  const messageIds: Record<string, string> = {}

  const projectSearch = (query: string, key = apiKey): Promise<Reply> =>
    call(gateway.current.baseUrl, "GET", `/v1/projects/search?${query}`, {
      headers: { authorization: `Bearer ${key}` }
    })
  const hits = async (query: string, key = apiKey): Promise<Array<Hit>> => {
    const reply = await projectSearch(query, key)
    expect(reply.status, reply.text).toBe(200)
    return reply.body.results
  }
  const found = async (q: string) => (await hits(`q=${encodeURIComponent(q)}`)).map((hit) => hit.thread.id)

  const thread = async (as: ReturnType<typeof asUser>, name: string, title?: string) => {
    const reply = await as("POST", "/threads", {
      body: { last_message_at: new Date().toISOString(), ...(title === undefined ? {} : { title }) }
    })
    expect(reply.status, reply.text).toBe(201)
    ids[name] = reply.body.thread_id
    return reply.body.thread_id as string
  }
  const say = async (as: ReturnType<typeof asUser>, threadName: string, text: string, format = "svc/v0") => {
    const content =
      format === "ai-sdk/v6"
        ? { role: "user", parts: [{ type: "text", text }] }
        : format === "svc/v0"
          ? { role: "user", content: [{ type: "text", text }] }
          : { role: "user", body: text }
    const reply = await as("POST", `/threads/${ids[threadName]}/messages`, {
      body: { parent_id: null, format, content }
    })
    expect(reply.status, reply.text).toBe(201)
    return reply.body.message_id as string
  }

  beforeAll(async () => {
    const project = await createProject(gateway.current, "search")
    apiKey = project.api_key
    projectId = project.project_id
    otherKey = (await createProject(gateway.current, "search-other")).api_key
    user = asUser(gateway.current, apiKey, "user-1", "ws-1")
    stranger = asUser(gateway.current, apiKey, "user-2", "ws-2")
    const outsider = asUser(gateway.current, otherKey, "user-1", "ws-1")

    await thread(user, "lisbonTitle", "Weekend in Lisbon")
    await say(user, "lisbonTitle", "Which neighbourhood should we stay in?")
    await thread(user, "mention")
    await say(user, "mention", "We talked about many cities: Paris, Rome, Berlin, Madrid, Vienna and Lisbon too.")
    await say(user, "mention", "In the end we booked nothing at all, the prices were too high for us.")
    await thread(user, "phrase")
    messageIds.phrase = await say(user, "phrase", "The quick brown fox jumps over the lazy dog.")
    await thread(user, "reversed")
    await say(user, "reversed", "A brown quick fox, or was it a dog that jumped?")
    await thread(user, "chinese")
    messageIds.chinese = await say(user, "chinese", "我们明天去北京旅行，然后去上海。")
    await thread(user, "japanese")
    await say(user, "japanese", "東京で寿司を食べました。とても美味しかったです。")
    await thread(user, "arabic")
    await say(user, "arabic", "نريد زيارة القاهرة في الربيع")
    await thread(user, "aisdk")
    await say(user, "aisdk", "Remember the aardvark notebook", "ai-sdk/v6")
    await thread(user, "opaque")
    await say(user, "opaque", "zebracorn hidden in another format", "custom/v1")
    await thread(stranger, "strangers", "Stranger's notes")
    await say(stranger, "strangers", "Secret plans for the aardvark festival")
    await thread(outsider, "outsiders")
    await say(outsider, "outsiders", "Another project's aardvark and Lisbon")
  })

  it("finds a thread by a word of a message, with the message and a highlighted snippet", async () => {
    const results = await hits("q=fox")
    expect(results.map((hit) => hit.thread.id).sort()).toEqual([ids.phrase, ids.reversed].sort())
    const phrase = results.find((hit) => hit.thread.id === ids.phrase)
    expect(phrase?.message_id).toBe(messageIds.phrase)
    expect(phrase?.snippet.text).toContain("quick brown fox")
    const marked = phrase?.snippet.highlights.map(([start, end]) => phrase.snippet.text.slice(start, end))
    expect(marked).toEqual(["fox"])
  })

  it("is case-insensitive and reads quoted phrases in order", async () => {
    expect((await found("FOX")).sort()).toEqual([ids.phrase, ids.reversed].sort())
    expect(await found('"quick brown fox"')).toEqual([ids.phrase])
    expect(await found('"brown quick fox"')).toEqual([ids.reversed])
  })

  it("takes -word and OR", async () => {
    expect(await found("fox -lazy")).toEqual([ids.reversed])
    expect((await found("aardvark OR neighbourhood")).sort()).toEqual(
      [ids.aisdk, ids.strangers, ids.lisbonTitle].sort()
    )
  })

  it("finds a word inside Chinese, Japanese and Arabic text", async () => {
    expect(await found("北京")).toEqual([ids.chinese])
    expect(await found("上海")).toEqual([ids.chinese])
    expect(await found("京北")).toEqual([])
    expect(await found("寿司")).toEqual([ids.japanese])
    expect(await found("القاهرة")).toEqual([ids.arabic])
    const [hit] = await hits(`q=${encodeURIComponent("北京")}`)
    expect(hit?.message_id).toBe(messageIds.chinese)
    const marked = hit?.snippet.highlights.map(([start, end]) => hit.snippet.text.slice(start, end))
    expect(marked).toEqual(["北京"])
  })

  it("ranks a title match above a passing mention", async () => {
    const results = await hits("q=lisbon")
    expect(results.map((hit) => hit.thread.id)).toEqual([ids.lisbonTitle, ids.mention])
    expect(results[0]?.score).toBeGreaterThan(results[1]?.score ?? Number.POSITIVE_INFINITY)
    // Only the title matched: no message, the snippet is the title.
    expect(results[0]?.message_id).toBeNull()
    expect(results[0]?.snippet.text).toBe("Weekend in Lisbon")
  })

  it("ranks the same with an exclusion: -word only filters", async () => {
    const results = await hits(`q=${encodeURIComponent("lisbon -paris")}`)
    expect(results.map((hit) => hit.thread.id)).toEqual([ids.lisbonTitle])
    const plain = await hits("q=lisbon")
    // The mention also names Paris, so it is excluded; the title match keeps its rank.
    expect(results[0]?.score).toBeCloseTo(plain[0]?.score ?? 0, 6)
    expect(results[0]?.score).toBeGreaterThan(0.1)
  })

  it("indexes ai-sdk/v6 text parts, not other formats", async () => {
    expect(await found("notebook")).toEqual([ids.aisdk])
    expect(await found("zebracorn")).toEqual([])
  })

  it("indexes a message sent with an external_id; its retry leaves the index as it was, a re-post with other text replaces it", async () => {
    const threadId = await thread(user, "external")
    const body = (text: string) => ({
      parent_id: null,
      format: "svc/v0",
      external_id: "client-msg",
      content: { role: "user", content: [{ type: "text", text }] }
    })
    const first = await user("POST", `/threads/${threadId}/messages`, { body: body("the okapi crossed the river") })
    expect(first.status, first.text).toBe(201)
    const retry = await user("POST", `/threads/${threadId}/messages`, { body: body("the okapi crossed the river") })
    expect(retry.status, retry.text).toBe(200)
    const results = await hits("q=okapi")
    expect(results.map((hit) => [hit.thread.id, hit.message_id])).toEqual([[threadId, first.body.message_id]])
    expect(await found("narwhal")).toEqual([])
    // Issue 26: the same external_id with other text replaces the message's text in the index.
    const replaced = await user("POST", `/threads/${threadId}/messages`, { body: body("the narwhal stayed home") })
    expect(replaced.status, replaced.text).toBe(200)
    expect(replaced.body.message_id).toBe(first.body.message_id)
    expect(await found("narwhal")).toEqual([threadId])
    expect(await found("okapi")).toEqual([])
  })

  it("follows edits: a new title, new message content", async () => {
    const rename = await user("PUT", `/threads/${ids.phrase}`, { body: { title: "Kangaroo stories" } })
    expect(rename.status, rename.text).toBe(204)
    expect(await found("kangaroo")).toEqual([ids.phrase])
    const edit = await user("PUT", `/threads/${ids.phrase}/messages/${messageIds.phrase}`, {
      body: { content: { role: "user", content: "A slow green turtle now." } }
    })
    expect(edit.status, edit.text).toBe(204)
    expect(await found("turtle")).toEqual([ids.phrase])
    expect(await found('"quick brown fox"')).toEqual([])
  })

  it("no longer finds a deleted message or thread", async () => {
    const gone = await thread(user, "doomed", "Platypus thread")
    const message = await say(user, "doomed", "the wombat lives here")
    expect(await found("wombat")).toEqual([gone])
    const removed = await user("POST", `/threads/${gone}/messages/delete`, { body: { message_ids: [message] } })
    expect(removed.status, removed.text).toBe(200)
    expect(await found("wombat")).toEqual([])
    expect(await found("platypus")).toEqual([gone])
    expect((await user("DELETE", `/threads/${gone}`)).status).toBe(204)
    expect(await found("platypus")).toEqual([])
  })

  it("the thread API searches the caller's workspace only; the project API every workspace, never another project", async () => {
    const own = await user("GET", "/threads/search?q=aardvark")
    expect(own.status, own.text).toBe(200)
    expect(own.body.results.map((hit: Hit) => hit.thread.id)).toEqual([ids.aisdk])
    const theirs = await stranger("GET", "/threads/search?q=aardvark")
    expect(theirs.body.results.map((hit: Hit) => hit.thread.id)).toEqual([ids.strangers])
    expect((await found("aardvark")).sort()).toEqual([ids.aisdk, ids.strangers].sort())
    expect((await hits("q=aardvark", otherKey)).map((hit) => hit.thread.id)).toEqual([ids.outsiders])
  })

  it("the thread API searches with a JWT and an anonymous session too, on the frontend URL", async () => {
    const jwt = await asJwtUser(gateway.current, { project_id: projectId, api_key: apiKey }, "user-1", "ws-1")
    const viaJwt = await jwt("GET", "/threads/search?q=aardvark")
    expect(viaJwt.status, viaJwt.text).toBe(200)
    expect(viaJwt.body.results.map((hit: Hit) => hit.thread.id)).toEqual([ids.aisdk])
    const anonymous = await asAnonymous(gateway.current, projectId)
    const own = await anonymous.client("POST", "/threads", { body: { last_message_at: new Date().toISOString() } })
    expect(own.status, own.text).toBe(201)
    const said = await anonymous.client("POST", `/threads/${own.body.thread_id}/messages`, {
      body: { parent_id: null, format: "svc/v0", content: { role: "user", content: "my aardvark question" } }
    })
    expect(said.status, said.text).toBe(201)
    const viaAnonymous = await anonymous.client("GET", "/threads/search?q=aardvark")
    expect(viaAnonymous.status, viaAnonymous.text).toBe(200)
    expect(viaAnonymous.body.results.map((hit: Hit) => hit.thread.id)).toEqual([own.body.thread_id])
    // The project API takes an API key only: a JWT is refused.
    expect((await jwt("GET", "/projects/search?q=aardvark")).status).toBe(401)
  })

  it("filters by is_archived and time, and pages with offset", async () => {
    const archive = await user("PUT", `/threads/${ids.reversed}`, { body: { is_archived: true } })
    expect(archive.status, archive.text).toBe(204)
    expect(await found("dog")).toEqual([ids.reversed])
    expect((await hits("q=dog&is_archived=false")).map((hit) => hit.thread.id)).toEqual([])
    expect((await hits("q=dog&is_archived=true")).map((hit) => hit.thread.id)).toEqual([ids.reversed])
    const future = new Date(Date.now() + 3_600_000).toISOString()
    expect(await hits(`q=dog&from=${future}`)).toEqual([])
    expect((await hits(`q=dog&to=${future}`)).map((hit) => hit.thread.id)).toEqual([ids.reversed])

    const first = await projectSearch("q=aardvark OR lisbon OR 北京&limit=2")
    expect(first.status, first.text).toBe(200)
    expect(first.body.results).toHaveLength(2)
    expect(first.body.next_offset).toBe(2)
    const rest = await projectSearch("q=aardvark OR lisbon OR 北京&limit=2&offset=2")
    const all = await hits("q=aardvark OR lisbon OR 北京")
    expect([...first.body.results, ...rest.body.results].map((hit: Hit) => hit.thread.id)).toEqual(
      all.map((hit) => hit.thread.id).slice(0, 4)
    )
    const last = await projectSearch(`q=aardvark OR lisbon OR 北京&offset=${all.length}`)
    expect(last.body).toEqual({ results: [], next_offset: null })
  })

  it("answers 400 for a missing, blank or long query and a bad offset; 401 without a key", async () => {
    for (const query of ["", "q=", "q=%20%20", `q=${"a".repeat(257)}`, "q=fox&offset=-1", "q=fox&offset=1001"]) {
      const reply = await projectSearch(query)
      expect(reply.status, `${query}: ${reply.text}`).toBe(400)
      expect(reply.body.error).toBe("invalid_request")
    }
    const plain = await call(gateway.current.baseUrl, "GET", "/v1/projects/search?q=fox")
    expect(plain.status).toBe(401)
    // Operators alone match nothing rather than failing.
    expect(await hits(`q=${encodeURIComponent('- OR ""')}`)).toEqual([])
  })
})
