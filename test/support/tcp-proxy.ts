/**
 * A TCP proxy in front of a real server, which a test can take down (every
 * connection cut, nothing listening) and bring back on the same port: an
 * outage of PostgreSQL as the gateway sees it, without stopping the shared one.
 * It can also cut one connection around one statement (`cut`): before the
 * statement reaches the server, or after the server ran it and before its
 * answer reaches the client (a connection lost around a commit).
 */
import * as net from "node:net"

/** Where `TcpProxy.cut` cuts. */
export interface CutPlan {
  /**
   * Texts a client sends on one connection, in this order (a statement's
   * text is in the bytes of its Parse or Query message); the cut comes with
   * the last.
   */
  readonly after: ReadonlyArray<string>
  /**
   * "request": the bytes holding the last text are dropped, then both sides
   * are cut (the server never runs it). "reply": they reach the server, whose
   * answer is dropped once it says it has run the statement (ReadyForQuery),
   * then both sides are cut (it ran, and committed unless a transaction was
   * open).
   */
  readonly drop: "request" | "reply"
}

export interface TcpProxy {
  readonly port: number
  /** Cut every connection and stop listening. */
  readonly down: () => Promise<void>
  /** Listen again on the same port. */
  readonly up: () => Promise<void>
  /** Cuts the first connection that sends `plan.after`, once; resolves when it has. */
  readonly cut: (plan: CutPlan) => Promise<void>
}

/** The PostgreSQL protocol's ReadyForQuery message up to its status byte: 'Z', then its length, 5. */
const READY_FOR_QUERY = Buffer.from([0x5a, 0, 0, 0, 5])

export const startTcpProxy = async (target: { host: string; port: number }, port = 0): Promise<TcpProxy> => {
  const sockets = new Set<net.Socket>()
  let armed: { readonly plan: CutPlan; readonly done: () => void } | undefined
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(client)
    sockets.add(upstream)
    const cut = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    // How far this connection has gone through the armed plan's texts, and whether its next answer is dropped.
    let matched = 0
    let matching: typeof armed
    let cutOnReply: (() => void) | undefined
    client.on("data", (chunk: Buffer) => {
      const plan = armed
      if (plan !== undefined) {
        // Progress made towards an earlier plan does not count towards this one.
        if (matching !== plan) {
          matching = plan
          matched = 0
        }
        let from = 0
        while (matched < plan.plan.after.length) {
          const at = chunk.indexOf(plan.plan.after[matched] ?? "", from)
          if (at < 0) break
          from = at + 1
          matched++
        }
        if (matched === plan.plan.after.length) {
          armed = undefined
          if (plan.plan.drop === "request") {
            cut()
            plan.done()
            return
          }
          cutOnReply = plan.done
        }
      }
      if (!upstream.write(chunk)) client.pause()
    })
    upstream.on("drain", () => client.resume())
    upstream.on("data", (chunk: Buffer) => {
      // The server's answer to the statement ends with ReadyForQuery, sent once it has run (and, outside a
      // transaction, committed) it; what comes before (ParseComplete, which the server may send as soon as it
      // has parsed the statement) passes.
      if (cutOnReply !== undefined && chunk.includes(READY_FOR_QUERY)) {
        const done = cutOnReply
        cutOnReply = undefined
        cut()
        done()
        return
      }
      if (!client.write(chunk)) upstream.pause()
    })
    client.on("drain", () => upstream.resume())
    client.on("end", () => upstream.end())
    upstream.on("end", () => client.end())
    client.on("error", cut).on("close", cut)
    upstream.on("error", cut).on("close", cut)
  })
  const listen = (on: number) =>
    new Promise<number>((resolve, reject) => {
      server.once("error", reject)
      server.listen(on, "127.0.0.1", () => {
        server.off("error", reject)
        resolve((server.address() as net.AddressInfo).port)
      })
    })
  const bound = await listen(port)
  return {
    port: bound,
    down: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        sockets.clear()
        server.close(() => resolve())
      }),
    up: async () => {
      await listen(bound)
    },
    cut: (plan) =>
      new Promise<void>((resolve) => {
        armed = { plan, done: resolve }
      })
  }
}

/** A port that nothing listens on now (taken from the OS, then released). */
export const freePort = async (): Promise<number> => {
  const server = net.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as net.AddressInfo
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** A proxy in front of `databaseUrl`'s server, and that URL through it. */
export const proxyDatabase = async (databaseUrl: string): Promise<{ proxy: TcpProxy; url: string }> => {
  const target = new URL(databaseUrl)
  const proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
  const proxied = new URL(databaseUrl)
  proxied.hostname = "127.0.0.1"
  proxied.port = String(proxy.port)
  return { proxy, url: proxied.toString() }
}
