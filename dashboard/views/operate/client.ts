/**
 * The operating views' client, derived from their own API
 * (schema/Api/DashboardOperate.ts `DashboardOperateApi`) with the page's
 * options (the CSRF header), made on first use: this chunk is loaded only
 * when an operating view is opened. Calls go through `run` (api.ts), so a
 * 401 shows the sign-in form and a failure comes as words.
 */
import * as HttpApiClient from "@effect/platform/HttpApiClient"
import * as Effect from "effect/Effect"
import { DashboardOperateApi } from "../../../schema/Api/DashboardOperate.js"
import { clientOptions } from "../../api.js"

const make = () => HttpApiClient.group(DashboardOperateApi, { group: "dashboardOperate", ...clientOptions })
type Client = Effect.Effect.Success<ReturnType<typeof make>>

let made: Client | undefined

/** The group's calls: `run(operate().getSettings({ path: { project_id } }))`. */
export const operate = (): Client => {
  made ??= Effect.runSync(make())
  return made
}
