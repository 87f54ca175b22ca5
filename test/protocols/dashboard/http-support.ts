/**
 * Signing in to the dashboard over HTTP, for the suites that call its routes
 * without a browser (docs/dashboard.md "Sign-in and session").
 */
import { call, type Gateway } from "../../support/layers.js"

/** What the dashboard's own page sends on a changing call: the CSRF header and the gateway's origin. */
export const SAME_SITE = (gateway: Gateway) => ({ origin: gateway.baseUrl, "x-svc-dashboard": "1" })

/**
 * Each sign-in from an address of its own (suites trust 127.0.0.1 as a proxy
 * through TRUSTED_PROXIES), clear of the 10-a-minute limit per address.
 */
let addresses = 0
const nextAddress = () => `10.0.${Math.floor(++addresses / 250)}.${addresses % 250}`

/** Signs in with `token`: the reply, its Set-Cookie and the cookie to send (`svc_session=...`). */
export const signIn = async (gateway: Gateway, token: string, headers: Record<string, string> = SAME_SITE(gateway)) => {
  const reply = await call(gateway.baseUrl, "POST", "/v1/dashboard/session", {
    body: { token },
    headers: { "x-forwarded-for": nextAddress(), ...headers }
  })
  const setCookie = reply.headers.get("set-cookie") ?? ""
  return { reply, setCookie, cookie: setCookie.split(";")[0] ?? "" }
}
