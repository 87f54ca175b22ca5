import { describe, expect, it } from "vitest"
import { makeRouteTable } from "../../../protocols/rest/RouteTable.js"

const MiB = 1024 * 1024

describe("the route table read from schema/Api", () => {
  it("gives each endpoint the body cap it declares, following MAX_BODY_BYTES the way the cap leans", () => {
    const table = makeRouteTable(MiB)
    expect(table.rules("POST", "/v1/threads").maxBytes).toBe(MiB)
    expect(table.rules("POST", "/v1/threads/thread_1/messages").maxBytes).toBe(128 * 1024)
    expect(table.rules("PUT", "/v1/threads/thread_1/messages/msg_1?x=1").maxBytes).toBe(128 * 1024)
    expect(table.rules("POST", "/v1/threads/thread_1/messages/delete").maxBytes).toBe(128 * 1024)
    // The DELETE form of the batch delete carries a body: the message routes' cap, its own route name.
    expect(table.rules("DELETE", "/v1/threads/thread_1/messages")).toEqual({
      host: "both",
      maxBytes: 128 * 1024,
      json: true,
      route: "/v1/threads/:thread_id/messages"
    })
    expect(table.rules("POST", "/v1/runs").maxBytes).toBe(4 * MiB)
    expect(table.rules("POST", "/v1/runs/stream").maxBytes).toBe(256 * 1024)
    expect(table.rules("PUT", "/v1/blobs/proj_1/ws/id/a.png")).toEqual({
      host: "both",
      maxBytes: 25 * MiB,
      json: false,
      route: "/v1/blobs/*"
    })
    // A lower default lowers the smaller caps too; a higher one raises the larger.
    expect(makeRouteTable(64 * 1024).rules("POST", "/v1/threads/t/messages").maxBytes).toBe(64 * 1024)
    expect(makeRouteTable(64 * 1024).rules("POST", "/v1/runs").maxBytes).toBe(4 * MiB)
    expect(makeRouteTable(8 * MiB).rules("POST", "/v1/runs").maxBytes).toBe(8 * MiB)
    expect(makeRouteTable(8 * MiB).rules("POST", "/v1/threads/t/messages").maxBytes).toBe(128 * 1024)
  })

  it("knows which host serves each endpoint", () => {
    const table = makeRouteTable(MiB)
    expect(table.rules("POST", "/v1/auth/tokens").host).toBe("backend")
    expect(table.rules("GET", "/v1/admin/projects").host).toBe("backend")
    expect(table.rules("PUT", "/v1/admin/projects/proj_1/origins").host).toBe("backend")
    expect(table.rules("POST", "/v1/auth/tokens/anonymous").host).toBe("frontend")
    expect(table.rules("POST", "/v1/auth/tokens/refresh").host).toBe("frontend")
    expect(table.rules("GET", "/v1/threads").host).toBe("both")
    expect(table.rules("GET", "/v1/no/such/route").host).toBe("both")
  })
})
