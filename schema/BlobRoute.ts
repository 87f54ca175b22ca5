/**
 * The gateway's own blob route, where the local store's signed URLs point:
 * `/p/{project_id}/v1/blobs/{key}` (the project's frontend base URL, so its
 * allowed origins govern browser uploads), also served without the
 * `/p/{project_id}` prefix. Keys start with their project id.
 */
export const BLOB_ROUTE_PREFIX = "/v1/blobs/"

/** The path of `key` under its project's frontend base URL. */
export const blobRoute = (key: string): string => `/p/${key.slice(0, key.indexOf("/"))}${BLOB_ROUTE_PREFIX}${key}`

const ROUTE = /^(?:\/p\/([^/?#]+))?\/v1\/blobs\/([^?#]+)$/

/** The key a blob route path names, or undefined: another path, or a project prefix that is not the key's. */
export const keyOfBlobRoute = (path: string): string | undefined => {
  const match = ROUTE.exec(path)
  const key = match?.[2]
  if (key === undefined) return undefined
  if (match?.[1] !== undefined && match[1] !== key.slice(0, key.indexOf("/"))) return undefined
  return key
}
