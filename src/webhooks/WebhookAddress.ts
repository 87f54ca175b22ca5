/**
 * Where a webhook may go (docs/decisions.md "Webhooks", Destinations):
 * public unicast addresses only, unless the operator allows the others
 * (WEBHOOK_ALLOW_PRIVATE). Checked when a subscription is made and again on
 * every delivery, on the address actually connected to (DNS may have
 * changed, or answer differently the second time).
 *
 * The ranges are ipaddr.js's table of special-purpose ranges (IANA's
 * registries), not a list of our own: an address is public when ipaddr.js
 * calls it `unicast` and, for IPv6, it lies in global unicast (2000::/3).
 * Every IPv6 form that carries an IPv4 address (mapped, translated,
 * compatible, NAT64, 6to4, Teredo) is refused whatever the IPv4 inside: a
 * host that exists is reachable by its IPv4 address or its name, and these
 * forms are how a private IPv4 address gets past a check made on IPv6.
 */
import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import ipaddr from "ipaddr.js"

/** Global unicast (RFC 4291, IANA's IPv6 address space): no public IPv6 address is outside it. */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR("2000::/3")
/** IPv4-compatible IPv6 (RFC 4291 2.5.5.1, deprecated): ipaddr.js has no name for it (it calls it unicast). */
const IPV4_COMPATIBLE = ipaddr.IPv6.parseCIDR("::/96")

/** What ipaddr.js's range names mean, for the refusal message (a name missing here is shown as is). */
const RANGE_NAMES: Readonly<Record<string, string>> = {
  unspecified: "unspecified",
  broadcast: "broadcast",
  multicast: "multicast",
  linkLocal: "link-local",
  loopback: "loopback",
  carrierGradeNat: "carrier-grade NAT, 100.64.0.0/10",
  private: "private",
  reserved: "reserved or documentation",
  benchmarking: "benchmarking",
  as112: "AS112",
  as112v6: "AS112",
  amt: "AMT",
  uniqueLocal: "unique local, fc00::/7",
  deprecatedSiteLocal: "site-local, fec0::/10",
  ipv4Mapped: "IPv4-mapped, ::ffff:0:0/96",
  rfc6145: "IPv4-translated, ::ffff:0:0:0/96",
  rfc6052: "NAT64, 64:ff9b::/96 or 64:ff9b:1::/48",
  "6to4": "6to4, 2002::/16",
  teredo: "Teredo, 2001::/32",
  discard: "discard-only, 100::/64",
  deprecatedOrchid: "ORCHID",
  orchid2: "ORCHIDv2",
  droneRemoteIdProtocolEntityTags: "DRIP entity tags",
  segmentRouting: "segment routing, 5f00::/16"
}

/** Why `address` (an IP address, IPv6 with or without brackets) is not public, or undefined when it is. */
export const nonPublicReason = (address: string): string | undefined => {
  const bare = address.replace(/^\[|\]$/g, "")
  // node:net's parser decides what an address is (ipaddr.js would also take `127.1` and other short IPv4 forms).
  if (isIP(bare) === 0 || !ipaddr.isValid(bare)) return "not an IP address"
  const parsed = ipaddr.parse(bare)
  const range: string = parsed.range()
  if (range !== "unicast") return RANGE_NAMES[range] ?? range
  if (parsed.kind() === "ipv6") {
    if (parsed.match(IPV4_COMPATIBLE)) return "IPv4-compatible, ::/96"
    if (!parsed.match(GLOBAL_UNICAST)) return "outside global unicast, 2000::/3"
  }
  return undefined
}

/** True for an address that is not on the public internet (private, loopback, link-local, an IPv4 inside IPv6...). */
export const isNonPublicAddress = (address: string): boolean => nonPublicReason(address) !== undefined

/** What a refused address is, for the messages of a create (400) and of a delivery attempt. */
export const nonPublicText = (address: string): string | undefined => {
  const reason = nonPublicReason(address)
  return reason === undefined
    ? undefined
    : `a private, loopback or link-local address or another non-public one (${reason})`
}

/** Why a destination host is refused, or undefined when every address it resolves to is public. */
export const refusedHost = async (hostname: string, allowPrivate: boolean): Promise<string | undefined> => {
  const host = hostname.replace(/^\[|\]$/g, "")
  if (isIP(host) !== 0) {
    const refused = allowPrivate ? undefined : nonPublicText(host)
    return refused === undefined ? undefined : `${host} is ${refused}`
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
  for (const entry of addresses) {
    const refused = nonPublicText(entry.address)
    if (refused !== undefined) return `${host} resolves to ${entry.address}, ${refused}`
  }
  return undefined
}
