/**
 * POST /v1/runs/stream and the thread title helper generateThreadTitle
 * (docs/api-and-auth.md "Titles", docs/client-library.md "Three modes"), and the runs.stream bullet of
 * docs/decisions.md "Client library (svc-client)".
 */
import { CloudAPIError, CloudResponseError, generateThreadTitle } from "svc-client"
import { afterEach, describe, expect, it } from "vitest"
import { FakeFetch, json, jwtClient, restoreGlobals, text } from "./fakes.js"

afterEach(restoreGlobals)

/** A text/plain answer arriving in the given chunks. */
const chunked = (chunks: ReadonlyArray<string | Uint8Array>, contentType = "text/plain; charset=utf-8"): Response => {
  const encoder = new TextEncoder()
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk)
      controller.close()
    }
  })
  return new Response(body, { status: 200, headers: { "Content-Type": contentType } })
}

const collect = async <A>(stream: ReadableStream<A>): Promise<Array<A>> => {
  const out: Array<A> = []
  const reader = stream.getReader()
  for (let next = await reader.read(); !next.done; next = await reader.read()) out.push(next.value)
  return out
}

const body = {
  thread_id: "t1",
  assistant_id: "system/thread_title",
  messages: [{ role: "user", content: "Trip to Lisbon" }]
} as const

describe("runs.stream", () => {
  it("POST /v1/runs/stream sends { thread_id, assistant_id: system/thread_title, messages } with Accept text/plain", async () => {
    const fake = new FakeFetch().answer(chunked(["x"]))
    await jwtClient(fake).runs.stream(body)
    const [sent] = fake.sent
    expect([sent?.method, sent?.path, sent?.headers.get("Accept")]).toEqual(["POST", "/v1/runs/stream", "text/plain"])
    expect(FakeFetch.json(sent)).toEqual(body)
  })

  // docs/decisions.md "assistant-ui as the cloud client (issue 26)": the streaming helper's AssistantStream.
  it("yields an AssistantStream: one text part whose text-delta chunks carry the plain-text answer", async () => {
    const euro = new TextEncoder().encode("€") // three bytes, split across two chunks
    const fake = new FakeFetch().answer(chunked(["Trip ", "to ", euro.slice(0, 1), euro.slice(1), " Lisbon"]))
    const chunks = await collect(await jwtClient(fake).runs.stream(body))
    expect(chunks[0]).toEqual({ type: "part-start", part: { type: "text" }, path: [] })
    expect(chunks.at(-1)).toEqual({ type: "part-finish", path: [0] })
    const deltas = chunks.slice(1, -1)
    for (const chunk of deltas) expect(chunk).toMatchObject({ type: "text-delta", path: [0] })
    expect(deltas.map((chunk) => (chunk.type === "text-delta" ? chunk.textDelta : "")).join("")).toBe(
      "Trip to € Lisbon"
    )
    expect(deltas.slice(0, 2)).toEqual([
      { type: "text-delta", path: [0], textDelta: "Trip " },
      { type: "text-delta", path: [0], textDelta: "to " }
    ])
  })

  it("an empty answer is an empty stream", async () => {
    expect(await collect(await jwtClient(new FakeFetch().answer(chunked([]))).runs.stream(body))).toEqual([])
  })

  it('refuses an answer whose content type does not start with text/plain: CloudResponseError naming "run stream"', async () => {
    for (const answer of [
      json({ title: "x" }),
      chunked(["<b>x</b>"], "text/html"),
      new Response("x", { status: 200, headers: { "Content-Type": "" } })
    ]) {
      const error = await jwtClient(new FakeFetch().answer(answer))
        .runs.stream(body)
        .catch((failure: unknown) => failure)
      expect(error).toBeInstanceOf(CloudResponseError)
      expect((error as Error).message).toBe('Invalid service response for "run stream": expected a text/plain body')
    }
  })

  it("refuses an answer without a body", async () => {
    const fake = new FakeFetch().answer(new Response(null, { status: 200, headers: { "Content-Type": "text/plain" } }))
    await expect(jwtClient(fake).runs.stream(body)).rejects.toThrow(
      new CloudResponseError('Invalid service response for "run stream": expected a text/plain body')
    )
  })

  it("accepts text/plain whatever its parameters and letter case", async () => {
    for (const type of ["text/plain", "text/plain; charset=utf-8", "Text/Plain;charset=UTF-8"]) {
      const chunks = await collect(await jwtClient(new FakeFetch().answer(chunked(["ok"], type))).runs.stream(body))
      expect(
        chunks.filter((chunk) => chunk.type === "text-delta"),
        type
      ).toEqual([{ type: "text-delta", path: [0], textDelta: "ok" }])
    }
  })

  it("a non-successful answer is a CloudAPIError", async () => {
    const fake = new FakeFetch().answer(text('{"error":"quota_exceeded"}', 402, { "Content-Type": "application/json" }))
    await expect(jwtClient(fake).runs.stream(body)).rejects.toMatchObject({
      name: "CloudAPIError",
      status: 402,
      code: "quota_exceeded"
    })
    await expect(jwtClient(new FakeFetch().answer(text("", 500))).runs.stream(body)).rejects.toBeInstanceOf(
      CloudAPIError
    )
  })
})

describe("generateThreadTitle", () => {
  it("streams system/thread_title, joins all text deltas, trims, PUTs the non-empty title and returns it", async () => {
    const fake = new FakeFetch().answer(chunked(["  Weekend ", "in ", "Lisbon\n"]))
    const cloud = jwtClient(fake)
    const messages = [{ role: "user", content: "Plan a weekend in Lisbon" }]
    await expect(generateThreadTitle(cloud, { threadId: "t/1", messages })).resolves.toBe("Weekend in Lisbon")
    expect(fake.sent.map((sent) => [sent.method, sent.path])).toEqual([
      ["POST", "/v1/runs/stream"],
      ["PUT", "/v1/threads/t%2F1"]
    ])
    expect(FakeFetch.json(fake.sent[0])).toEqual({ thread_id: "t/1", assistant_id: "system/thread_title", messages })
    expect(FakeFetch.json(fake.sent[1])).toEqual({ title: "Weekend in Lisbon" })
  })

  it("an empty stream returns null and writes nothing", async () => {
    for (const chunks of [[], [""], ["  ", "\n\t "]]) {
      const fake = new FakeFetch().answer(chunked(chunks))
      await expect(generateThreadTitle(jwtClient(fake), { threadId: "t", messages: [] })).resolves.toBeNull()
      expect(fake.sent.map((sent) => sent.path)).toEqual(["/v1/runs/stream"])
    }
  })

  it("a refused stream rejects and writes nothing", async () => {
    const fake = new FakeFetch().answer(json({ title: "x" }))
    await expect(generateThreadTitle(jwtClient(fake), { threadId: "t", messages: [] })).rejects.toBeInstanceOf(
      CloudResponseError
    )
    expect(fake.sent).toHaveLength(1)
  })
})
