/**
 * Kinds of principal never share an identity: anonymous users get ids with a
 * prefix of their own (`anon_` + a ULID, their own workspace), and no other
 * principal (an API key's identity headers, an external provider's claims)
 * may act as a user or workspace with that prefix. Without this, an external
 * token whose `sub` was an anonymous user's id got that user's threads.
 */
import { ulid } from "../platform/Ids.js"

export const ANONYMOUS_ID_PREFIX = "anon_"

/** A new anonymous user's id (also its workspace). */
export const newAnonymousUserId = (): string => `${ANONYMOUS_ID_PREFIX}${ulid()}`

/** Whether an id belongs to the anonymous users' namespace. */
export const isAnonymousId = (id: string): boolean => id.startsWith(ANONYMOUS_ID_PREFIX)

/** An identified principal's user and workspace: neither may be an anonymous id. */
export const isIdentifiedIdentity = (userId: string, workspaceId: string): boolean =>
  !isAnonymousId(userId) && !isAnonymousId(workspaceId)

/** A service token's identity is consistent: anonymous exactly when its user is an anonymous id, its own workspace. */
export const isConsistentTokenIdentity = (userId: string, workspaceId: string, anonymous: boolean): boolean =>
  anonymous ? isAnonymousId(userId) && workspaceId === userId : isIdentifiedIdentity(userId, workspaceId)
