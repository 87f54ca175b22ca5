/**
 * The request headers and versioning (docs/api-and-auth.md "Authentication and tenancy": header
 * order, Svc-Sdk and registerSdk). The promise client
 * takes no headers from its callers, so the merge order is checked on the
 * Transport every call goes through (the Effect client passes caller headers
 * to it).
 */
import { afterEach, describe, expect, it } from "vitest"
import { JwtAuth } from "../../../sdk/core/auth.js"
import { Transport } from "../../../sdk/core/request.js"
import { SdkRegistry } from "../../../sdk/core/sdkHeader.js"
import { apiKeyClient, FakeFetch, json, jwt, jwtClient, packageVersion, restoreGlobals } from "./fakes.js"

afterEach(restoreGlobals)

describe("Requests: headers", () => {
  it("headers merge in the order auth, caller, Content-Type, Svc-Sdk (the last two cannot be replaced)", async () => {
    const fake = new FakeFetch()
    const token = jwt(3600)
    const transport = new Transport("https://x.test", new JwtAuth(async () => token), new SdkRegistry(), fake.fetch)
    await transport.raw("/a", { headers: { "X-Caller": "1" } })
    await transport.raw("/b", {
      headers: {
        Authorization: "Bearer caller",
        "Content-Type": "text/plain",
        "Svc-Sdk": "evil/1",
        Accept: "text/plain"
      }
    })
    const [first, second] = fake.sent
    expect(first?.headers.get("Authorization")).toBe(`Bearer ${token}`)
    expect(first?.headers.get("X-Caller")).toBe("1")
    expect(second?.headers.get("Authorization")).toBe("Bearer caller")
    expect(second?.headers.get("Accept")).toBe("text/plain")
    expect(second?.headers.get("Content-Type")).toBe("application/json")
    expect(second?.headers.get("Svc-Sdk")).toBe(`svc-client/${packageVersion}`)
  })
})

describe("Part 9: versioning", () => {
  it("9.2: the package is on the 0.2 line", () => {
    expect(packageVersion).toMatch(/^0\.2\.\d+$/)
  })
  it("9.1: the client adds /v1 to every namespace route", async () => {
    const fake = new FakeFetch(() => json({}))
    const cloud = apiKeyClient(fake)
    await Promise.allSettled([
      cloud.threads.list(),
      cloud.threads.messages.list("t"),
      cloud.projects.threads.list(),
      cloud.auth.tokens.create(),
      cloud.scores.create({ name: "n", data_type: "boolean", value: true }),
      cloud.runs.report({} as never)
    ])
    expect(fake.sent).toHaveLength(6)
    for (const sent of fake.sent) expect(sent.url.startsWith("https://backend.example.test/v1/")).toBe(true)
  })

  it("9.3: Svc-Sdk starts with svc-client/<version>, then the registered identities, space-separated", async () => {
    const fake = new FakeFetch()
    const cloud = jwtClient(fake)
    cloud.registerSdk({ name: "my-app", version: "1.4.0" })
    cloud.registerSdk({ name: "ui-kit", version: "2.0.0" })
    await cloud.threads.delete("t")
    expect(fake.sent[0]?.headers.get("Svc-Sdk")).toBe(`svc-client/${packageVersion} my-app/1.4.0 ui-kit/2.0.0`)
  })

  it("9.4: registerSdk trims both strings", async () => {
    const fake = new FakeFetch()
    const cloud = jwtClient(fake)
    cloud.registerSdk({ name: "  my-app\t", version: " 1.0.0\n" })
    await cloud.threads.delete("t")
    expect(fake.sent[0]?.headers.get("Svc-Sdk")).toBe(`svc-client/${packageVersion} my-app/1.0.0`)
  })

  it("9.4: an identity with a character outside visible ASCII in either string is ignored", async () => {
    const fake = new FakeFetch()
    const cloud = jwtClient(fake)
    for (const identity of [
      { name: "my app", version: "1" },
      { name: "app", version: "1\u0000" },
      { name: "appé", version: "1" },
      { name: "app", version: "1.0\u00a0beta" },
      { name: "", version: "1" },
      { name: "app", version: "   " }
    ])
      cloud.registerSdk(identity)
    cloud.registerSdk({ name: "ok", version: "1" })
    await cloud.threads.delete("t")
    expect(fake.sent[0]?.headers.get("Svc-Sdk")).toBe(`svc-client/${packageVersion} ok/1`)
  })

  it("9.4: each name/version pair registers once, in first-insertion order", async () => {
    const fake = new FakeFetch()
    const cloud = jwtClient(fake)
    cloud.registerSdk({ name: "b", version: "1" })
    cloud.registerSdk({ name: "a", version: "1" })
    cloud.registerSdk({ name: "b", version: "1" })
    cloud.registerSdk({ name: " b ", version: "2" })
    await cloud.threads.delete("t")
    expect(fake.sent[0]?.headers.get("Svc-Sdk")).toBe(`svc-client/${packageVersion} b/1 a/1 b/2`)
  })

  it("9.4: the caller cannot replace the header", async () => {
    const fake = new FakeFetch()
    const transport = new Transport("https://x.test", { headers: async () => ({}) }, new SdkRegistry(), fake.fetch)
    await transport.raw("/a", { headers: { "svc-sdk": "other/9" } })
    expect(fake.sent[0]?.headers.get("Svc-Sdk")).toBe(`svc-client/${packageVersion}`)
  })

  it("9.5: the header holds at most 8 tokens", async () => {
    const fake = new FakeFetch()
    const cloud = jwtClient(fake)
    for (let index = 1; index <= 10; index++) cloud.registerSdk({ name: `lib${index}`, version: "1" })
    await cloud.threads.delete("t")
    const tokens = fake.sent[0]?.headers.get("Svc-Sdk")?.split(" ")
    expect(tokens).toEqual([`svc-client/${packageVersion}`, ...[1, 2, 3, 4, 5, 6, 7].map((n) => `lib${n}/1`)])
  })

  it("9.6: message formats travel in the format field (svc/v0, ai-sdk/v6)", async () => {
    const fake = new FakeFetch(() => json({ message_id: "m", messages: [] }))
    const cloud = jwtClient(fake)
    await cloud.threads.messages.create("t", { parent_id: null, format: "ai-sdk/v6", content: { parts: [] } })
    await cloud.threads.messages.list("t", { format: "ai-sdk/v6" })
    expect((FakeFetch.json(fake.sent[0]) as { format: string }).format).toBe("ai-sdk/v6")
    expect(fake.sent[1]?.path).toBe("/v1/threads/t/messages?format=ai-sdk%2Fv6")
  })
})
