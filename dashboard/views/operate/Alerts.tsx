/** Scaffolding: the Alerts view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Alerts = (_props: ViewProps) => {
  useTitle("Alerts")
  return <h1>Alerts</h1>
}
