/**
 * A TCP proxy in front of a real server, which a test can take down (every
 * connection cut, nothing listening) and bring back on the same port: an
 * outage of PostgreSQL as the gateway sees it, without stopping the shared one.
 */
import * as net from "node:net"

export interface TcpProxy {
  readonly port: number
  /** Cut every connection and stop listening. */
  readonly down: () => Promise<void>
  /** Listen again on the same port. */
  readonly up: () => Promise<void>
}

export const startTcpProxy = async (target: { host: string; port: number }, port = 0): Promise<TcpProxy> => {
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(client)
    sockets.add(upstream)
    client.pipe(upstream).pipe(client)
    const cut = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
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
    }
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
