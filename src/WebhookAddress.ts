/**
 * Where a webhook may go (decisions.md §12): not to private, loopback,
 * link-local or otherwise non-public addresses, unless the operator allows
 * them (WEBHOOK_ALLOW_PRIVATE). Checked when a subscription is made and
 * again on every delivery, on the address actually connected to (DNS may
 * have changed, or answer differently the second time).
 */
import { lookup } from "node:dns/promises"
import { BlockList, isIP } from "node:net"

const blocked = new BlockList()
for (const [network, prefix] of [
  ["0.0.0.0", 8], // "this" network
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local, cloud metadata
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4] // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, "ipv4")
}
for (const [network, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["ff00::", 8], // multicast
  ["64:ff9b::", 96], // NAT64 of any IPv4 address, private ones included
  ["2002::", 16] // 6to4, likewise
] as const) {
  blocked.addSubnet(network, prefix, "ipv6")
}

/** IPv4-mapped IPv6 (::ffff:10.0.0.1 or ::ffff:a00:1) as the IPv4 address it maps. */
const mappedIpv4 = (address: string): string | undefined => {
  const match = /^::ffff:(.+)$/i.exec(address)
  if (match?.[1] === undefined) return undefined
  if (isIP(match[1]) === 4) return match[1]
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(match[1])
  if (hex?.[1] === undefined || hex[2] === undefined) return undefined
  const high = Number.parseInt(hex[1], 16)
  const low = Number.parseInt(hex[2], 16)
  return [high >> 8, high & 255, low >> 8, low & 255].join(".")
}

/** True for an address that is not on the public internet (private, loopback, link-local, ...). */
export const isNonPublicAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, "")
  const family = isIP(bare)
  if (family === 0) return true
  const v4 = family === 6 ? mappedIpv4(bare) : bare
  return v4 !== undefined ? blocked.check(v4, "ipv4") : blocked.check(bare, "ipv6")
}

/** Why a destination host is refused, or undefined when every address it resolves to is public. */
export const refusedHost = async (hostname: string, allowPrivate: boolean): Promise<string | undefined> => {
  const host = hostname.replace(/^\[|\]$/g, "")
  if (isIP(host) !== 0) {
    return !allowPrivate && isNonPublicAddress(host)
      ? `${host} is a private, loopback or link-local address`
      : undefined
  }
  let addresses: ReadonlyArray<{ readonly address: string }>
  try {
    // A resolver that does not answer must not hold the request: 5 s, as a delivery attempt.
    addresses = await Promise.race([
      lookup(host, { all: true, verbatim: true }),
      new Promise<never>((_, reject) => setTimeout(() => reject(new Error("timeout")), 5_000).unref())
    ])
  } catch {
    return `${host} does not resolve`
  }
  if (addresses.length === 0) return `${host} does not resolve`
  if (allowPrivate) return undefined
  const bad = addresses.find((entry) => isNonPublicAddress(entry.address))
  return bad === undefined ? undefined : `${host} resolves to ${bad.address}, a private, loopback or link-local address`
}
