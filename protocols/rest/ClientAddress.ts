import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Option from "effect/Option"

const normalize = (address: string) => (address.startsWith("::ffff:") ? address.slice(7) : address)

/**
 * The client's address for per-address limits: the socket's peer, unless the
 * peer is a trusted proxy; then the nearest X-Forwarded-For hop that is not a
 * trusted proxy (hops further left can be forged by the client).
 */
export const clientAddress = (
  request: HttpServerRequest.HttpServerRequest,
  trustedProxies: ReadonlySet<string>
): string => {
  const peer = normalize(Option.getOrElse(request.remoteAddress, () => "unknown"))
  if (!trustedProxies.has(peer)) return peer
  const hops = (request.headers["x-forwarded-for"] ?? "")
    .split(",")
    .map((hop) => normalize(hop.trim()))
    .filter((hop) => hop !== "")
  for (let index = hops.length - 1; index >= 0; index--) {
    const hop = hops[index]
    if (hop !== undefined && !trustedProxies.has(hop)) return hop
  }
  return hops[0] ?? peer
}
