/**
 * A TCP relay in front of the gateway: a network hop between a client and
 * the server. A reset on one side is passed on as a reset on the other (as a
 * client across a network sees a server's reset), so a server that cuts a
 * connection while its client is still sending shows up as the client would
 * see it through a load balancer or another host, not only on loopback. It
 * also counts the request lines of one method and path that clients send
 * through it.
 */
import * as net from "node:net"

export interface RelayProxy {
  /** `http://127.0.0.1:<port>` */
  readonly url: string
  /** How many `METHOD path HTTP/1.1` request lines clients have sent so far. */
  readonly requests: () => number
  readonly close: () => Promise<void>
}

export const startRelayProxy = async (
  target: string,
  counted: { readonly method: string; readonly path: string } = { method: "POST", path: "/" }
): Promise<RelayProxy> => {
  const { hostname, port } = new URL(target)
  const requestLine = `${counted.method} ${counted.path} HTTP/1.1\r\n`
  const sockets = new Set<net.Socket>()
  let requests = 0
  // Half-open on both sides: a FIN is passed on by the pipes as a FIN, and each socket closes once both of its
  // directions are done.
  const server = net.createServer({ allowHalfOpen: true }, (client) => {
    const upstream = net.connect({ port: Number(port), host: hostname, allowHalfOpen: true })
    sockets.add(client).add(upstream)
    // A request line may straddle two reads: keep the end of the previous one.
    let tail = ""
    client.on("data", (chunk: Buffer) => {
      const text = tail + chunk.toString("latin1")
      requests += text.split(requestLine).length - 1
      tail = text.slice(-(requestLine.length - 1))
    })
    client.pipe(upstream).pipe(client)
    const reset = () => {
      for (const socket of [client, upstream]) if (!socket.destroyed) socket.resetAndDestroy()
    }
    client.on("error", reset).on("close", () => sockets.delete(client))
    upstream.on("error", reset).on("close", () => sockets.delete(upstream))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address() as net.AddressInfo
  return {
    url: `http://127.0.0.1:${address.port}`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
