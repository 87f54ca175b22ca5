/**
 * The tenant a repository call is bounded by: every statement filters by the
 * project, and the caller's workspace where the rows belong to one (a
 * CallerShape is one).
 */
export interface TenantScope {
  readonly projectId: string
  readonly workspaceId: string
}
