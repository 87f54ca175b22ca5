/**
 * The operating views (docs/dashboard.md "Operating views"), a chunk loaded
 * when one is opened (views/index.tsx): each a thin page over the
 * `/v1/dashboard` operating routes (client.ts). An API key's session reads
 * Settings; the gateway refuses it the rest (403), and the page does not
 * offer them.
 */
import type { OperateSection, ViewProps } from "../../router.js"
import { Alerts } from "./Alerts.js"
import { Erasure } from "./Erasure.js"
import { Evaluators } from "./Evaluators.js"
import { Jobs } from "./Jobs.js"
import { Keys } from "./Keys.js"
import { Settings } from "./Settings.js"
import { Webhooks } from "./Webhooks.js"

export const OperateView = (props: ViewProps & { readonly section: OperateSection }) => {
  switch (props.section) {
    case "settings":
      return <Settings {...props} />
    case "keys":
      return <Keys {...props} />
    case "alerts":
      return <Alerts {...props} />
    case "evaluators":
      return <Evaluators {...props} />
    case "webhooks":
      return <Webhooks {...props} />
    case "erasure":
      return <Erasure {...props} />
    case "jobs":
      return <Jobs {...props} />
  }
}
