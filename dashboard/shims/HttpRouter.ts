/**
 * What the page's bundle takes of @effect/platform's HttpRouter in its place
 * (scripts/build-dashboard.mjs): HttpApiEndpoint, which the client and the
 * schemas use, imports the server's router for one function, `prefixPath`
 * (an API's `.prefix("/v1")`); the router itself, with its path matcher and
 * the multipart parser its requests bring, is server code the page never
 * runs. The same function as the router's (internal/httpRouter.js).
 */
const removeTrailingSlash = (path: string): string => (path.endsWith("/") ? path.slice(0, -1) : path)

/** `path` under `prefix` ("/" alone becomes the prefix). */
export const prefixPath = (path: string, prefix: string): string => {
  const base = removeTrailingSlash(prefix)
  return path === "/" ? base : base + path
}
