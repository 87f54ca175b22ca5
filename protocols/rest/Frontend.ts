import * as Context from "effect/Context"

/**
 * The project of a request that came through a frontend base URL
 * (`{origin}/p/{project_id}/v1/...`, docs/decisions.md "Service-issued
 * tokens"). Such a request is authenticated with a JWT for that project, not
 * an API key.
 */
export class FrontendProject extends Context.Tag("svc/FrontendProject")<FrontendProject, string>() {}

const PREFIX = /^\/p\/([^/?#]{1,48})(\/v1(?:[/?#].*)?)$/

/** `/p/{project_id}/v1/...` split into the project id and the backend path, or undefined. */
export const splitFrontendUrl = (url: string): { readonly projectId: string; readonly url: string } | undefined => {
  const match = PREFIX.exec(url)
  if (!match?.[1] || !match[2]) return undefined
  try {
    return { projectId: decodeURIComponent(match[1]), url: match[2] }
  } catch {
    return undefined
  }
}
