/** Scaffolding: the Webhooks view is being written (issue 25). */
import type { ViewProps } from "../../router.js"
import { useTitle } from "../../ui.js"

export const Webhooks = (_props: ViewProps) => {
  useTitle("Webhooks")
  return <h1>Webhooks</h1>
}
