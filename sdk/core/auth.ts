import { isFresh, jwtExpiryMs } from "./jwt.js"
import type { AuthStrategy } from "./request.js"

/** The message of a JWT callback that gave nothing, and of a failed anonymous session request. */
export const AUTHORIZATION_FAILED = "Authorization failed"

/**
 * JWT mode (docs/client-library.md "Three modes"): the callback's token is reused until 30 s before
 * its `exp`; concurrent requests share one callback call; an answer's
 * `Authorization: Bearer <t>` replaces the cached token.
 */
export class JwtAuth implements AuthStrategy {
  #token: string | undefined
  #expiresAt: number | undefined
  #pending: Promise<string> | undefined

  constructor(private readonly authToken: () => Promise<string | null | undefined> | string | null | undefined) {}

  async headers(): Promise<Record<string, string>> {
    return { Authorization: `Bearer ${await this.#current()}` }
  }

  #current(): Promise<string> {
    if (this.#token !== undefined && isFresh(this.#expiresAt)) return Promise.resolve(this.#token)
    if (this.#pending === undefined) {
      const pending = (async () => {
        const token = await this.authToken()
        if (typeof token !== "string" || token === "") throw new Error(AUTHORIZATION_FAILED)
        this.#set(token)
        return token
      })()
      this.#pending = pending
      const clear = () => {
        if (this.#pending === pending) this.#pending = undefined
      }
      pending.then(clear, clear)
    }
    return this.#pending
  }

  #set(token: string): void {
    this.#token = token
    this.#expiresAt = jwtExpiryMs(token)
  }

  onResponse(response: Response): void {
    const header = response.headers.get("Authorization")
    if (header === null) return
    const match = /^Bearer (\S+)$/.exec(header)
    if (match === null || match[1] === undefined) throw new Error("Invalid auth header received")
    this.#set(match[1])
  }
}

/** API key mode: the key as bearer, with the user and workspace it acts as; nothing cached. */
export class ApiKeyAuth implements AuthStrategy {
  constructor(
    private readonly apiKey: string,
    private readonly userId: string,
    private readonly workspaceId: string
  ) {}

  headers(): Promise<Record<string, string>> {
    return Promise.resolve({
      Authorization: `Bearer ${this.apiKey}`,
      "Svc-User-Id": this.userId,
      "Svc-Workspace-Id": this.workspaceId
    })
  }
}
