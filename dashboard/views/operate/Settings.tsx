/** Scaffolding: the Settings view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Settings = (_props: ViewProps) => {
  useTitle("Settings")
  return <h1>Settings</h1>
}
