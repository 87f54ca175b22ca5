/**
 * The project's webhook subscriptions (docs/dashboard.md "Operating views"):
 * the list, a new one (its signing secret shown once), deletion after a
 * confirmation; with ?webhook=<id> its delivery log, every attempt of each
 * delivery, narrowed by ?status=, and redelivery.
 */
import { useState } from "preact/hooks"
import {
  CreateWebhook,
  type Delivery,
  type DeliveryStatus,
  WEBHOOK_EVENTS,
  type Webhook,
  type WebhookEventType
} from "../../../schema/Webhooks.js"
import { run } from "../../api.js"
import { formatDuration } from "../../format.js"
import { useLoad } from "../../load.js"
import { href, navigate, type ViewProps, withQuery } from "../../router.js"
import type { Column } from "../../table.js"
import { Badge, ShortId, Show, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { ActionResult, ConfirmDialog, SecretOnce, useAction } from "./forms.js"
import { AdminOnly, CaptionTable, checked, useKept, useVersion } from "./parts.js"

/** The delivery log's states, as its `?status=` filter takes them; "" is every delivery. */
const STATUSES: ReadonlyArray<readonly [DeliveryStatus, string]> = [
  ["pending", "Pending"],
  ["delivered", "Delivered"],
  ["failed", "Failed"]
]

const statusOf = (value: string | null): DeliveryStatus | undefined =>
  STATUSES.find(([status]) => status === value)?.[0]

const TONE: Record<DeliveryStatus, string> = { pending: "warn", delivered: "good", failed: "bad" }

/** The form for a new subscription; `onCreated` once the gateway has made it. */
const CreateForm = ({ projectId, onCreated }: { readonly projectId: string; readonly onCreated: () => void }) => {
  const action = useAction()
  const [url, setUrl] = useState("")
  const [events, setEvents] = useState<ReadonlyArray<WebhookEventType>>([])
  const [secret, setSecret] = useState<{ readonly url: string; readonly value: string } | undefined>(undefined)
  const toggle = (event: WebhookEventType, on: boolean) => {
    action.clear()
    setEvents((now) => WEBHOOK_EVENTS.filter((each) => (each === event ? on : now.includes(each))))
  }
  const submit = async (event: Event) => {
    event.preventDefault()
    setSecret(undefined)
    const created = await action.act(
      () => {
        const payload = checked(CreateWebhook, { url: url.trim(), events })
        return run(operate().createWebhook({ path: { project_id: projectId }, payload }))
      },
      (made) => `Created the webhook to ${made.url}.`
    )
    if (created === undefined) return
    setSecret({ url: created.url, value: created.secret })
    setUrl("")
    setEvents([])
    onCreated()
  }
  return (
    <section aria-labelledby="webhook-new">
      <h2 id="webhook-new">New webhook</h2>
      <form class="operate-form webhook-form" onSubmit={submit}>
        <label>
          URL
          <input
            type="text"
            inputMode="url"
            name="url"
            autoComplete="off"
            spellcheck={false}
            placeholder="https://example.com/hooks/svc"
            value={url}
            onInput={(event) => {
              action.clear()
              setUrl(event.currentTarget.value)
            }}
          />
        </label>
        <fieldset>
          <legend>Events</legend>
          {WEBHOOK_EVENTS.map((each) => (
            <label key={each} class="inline">
              <input
                type="checkbox"
                name="events"
                value={each}
                checked={events.includes(each)}
                onChange={(change) => toggle(each, change.currentTarget.checked)}
              />
              <code>{each}</code>
            </label>
          ))}
        </fieldset>
        <p class="hint">
          Deliveries are signed the Standard Webhooks way; a private or loopback address is refused unless the gateway
          allows it (WEBHOOK_ALLOW_PRIVATE).
        </p>
        <div class="buttons">
          <button type="submit" disabled={action.busy}>
            Create webhook
          </button>
        </div>
        <ActionResult action={action} />
      </form>
      {secret ? (
        <SecretOnce title="Webhook secret" copyLabel="Copy secret" value={secret.value}>
          The signing secret of the webhook to {secret.url}, shown this once: keep it now, it cannot be read again.
        </SecretOnce>
      ) : null}
    </section>
  )
}

const Attempts = ({ delivery }: { readonly delivery: Delivery }) =>
  delivery.attempt_log.length === 0 ? (
    <span class="muted">None yet</span>
  ) : (
    <ol class="attempts">
      {delivery.attempt_log.map((attempt, index) => (
        <li key={`${index}`}>
          <Time at={attempt.at} />{" "}
          {attempt.status_code === null ? (
            <Badge tone="bad">no answer</Badge>
          ) : (
            <Badge tone={attempt.status_code < 300 ? "good" : "bad"}>{attempt.status_code}</Badge>
          )}{" "}
          {attempt.error ? <span class="attempt-error">{attempt.error}</span> : null}{" "}
          <span class="muted">{formatDuration(attempt.duration_ms)}</span>
        </li>
      ))}
    </ol>
  )

/** The delivery log of one subscription, narrowed by ?status=, each delivery redeliverable. */
const DeliveryLog = (props: {
  readonly projectId: string
  readonly webhook: Webhook
  readonly status: DeliveryStatus | undefined
}) => {
  const { projectId, webhook, status } = props
  const action = useAction()
  const [version, reload] = useVersion()
  const base = `${projectId}/${webhook.id}?${status ?? ""}`
  const loaded = useKept(
    useLoad(`${base}#${version}`, (signal) =>
      run(
        operate().listDeliveries({
          path: { project_id: projectId, webhook_id: webhook.id },
          urlParams: status ? { status } : {}
        }),
        { signal }
      )
    ),
    base
  )
  const redeliver = async (delivery: Delivery) => {
    const again = await action.act(
      () =>
        run(
          operate().redeliver({
            path: { project_id: projectId, webhook_id: webhook.id, delivery_id: delivery.id }
          })
        ),
      (made) =>
        `Delivery ${made.id} is ${made.status} again: the webhooks job sends it on its next run (Jobs, Run webhooks now).`
    )
    if (again !== undefined) reload()
  }
  const columns: ReadonlyArray<Column<Delivery>> = [
    { title: "Delivery", cell: (delivery) => <ShortId id={delivery.id} /> },
    { title: "Event", cell: (delivery) => <code>{delivery.event_type}</code> },
    { title: "Status", cell: (delivery) => <Badge tone={TONE[delivery.status]}>{delivery.status}</Badge> },
    {
      title: "Action",
      cell: (delivery) => (
        <button
          type="button"
          aria-label={`Redeliver ${delivery.id}`}
          disabled={action.busy}
          onClick={() => redeliver(delivery)}
        >
          Redeliver
        </button>
      )
    },
    { title: "Attempts", cell: (delivery) => <Attempts delivery={delivery} /> },
    {
      title: "Next attempt",
      cell: (delivery) =>
        delivery.next_attempt_at ? (
          <>
            <Time at={delivery.next_attempt_at} />
            <br />
            <span class="muted">
              retried until <Time at={delivery.retry_until} />
            </span>
          </>
        ) : (
          <Time at={null} />
        )
    },
    { title: "Created", cell: (delivery) => <Time at={delivery.created_at} /> },
    { title: "Finished", cell: (delivery) => <Time at={delivery.finished_at} /> }
  ]
  return (
    <section aria-labelledby="webhook-deliveries">
      <h2 id="webhook-deliveries">
        Delivery log of <span class="webhook-url">{webhook.url}</span>
      </h2>
      <p class="hint">
        The latest 100 deliveries, newest first. A failed attempt is retried with backoff for 24 hours.{" "}
        <a href={href(projectId, "webhooks")}>Close the delivery log</a>
      </p>
      <div class="filters">
        <label>
          Status
          <select
            name="status"
            value={status ?? ""}
            onChange={(event) => navigate(withQuery({ status: event.currentTarget.value || undefined }))}
          >
            <option value="">All</option>
            {STATUSES.map(([value, label]) => (
              <option key={value} value={value}>
                {label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <ActionResult action={action} />
      <Show loaded={loaded} what="the deliveries">
        {({ deliveries }) => (
          <CaptionTable
            caption="Deliveries"
            columns={columns}
            rows={deliveries}
            rowKey={(delivery) => delivery.id}
            empty={status ? `No ${status} deliveries.` : "No deliveries yet."}
          />
        )}
      </Show>
    </section>
  )
}

export const Webhooks = ({ projectId, query, sessionKind }: ViewProps) => {
  useTitle("Webhooks")
  if (sessionKind !== "admin") {
    return (
      <>
        <h1>Webhooks</h1>
        <AdminOnly what="Webhooks" />
      </>
    )
  }
  // A project of its own each: a secret shown, a dialog open do not follow a switch of project.
  return <WebhooksOf key={projectId} projectId={projectId} query={query} />
}

const WebhooksOf = ({ projectId, query }: { readonly projectId: string; readonly query: URLSearchParams }) => {
  const [version, reload] = useVersion()
  const action = useAction()
  const [deleting, setDeleting] = useState<Webhook | undefined>(undefined)
  const loaded = useKept(
    useLoad(`${projectId}#${version}`, (signal) =>
      run(operate().listWebhooks({ path: { project_id: projectId } }), { signal })
    ),
    projectId
  )
  const open = query.get("webhook") ?? undefined
  const status = statusOf(query.get("status"))
  const remove = async (webhook: Webhook) => {
    const done = await action.act(
      // NoContent: true once it has gone (act answers undefined for a failure).
      async () => {
        await run(operate().deleteWebhook({ path: { project_id: projectId, webhook_id: webhook.id } }))
        return true
      },
      `Deleted the webhook to ${webhook.url}, and its deliveries.`
    )
    setDeleting(undefined)
    if (done === undefined) return
    if (open === webhook.id) navigate(withQuery({ webhook: undefined, status: undefined }), { replace: true })
    reload()
  }
  const columns: ReadonlyArray<Column<Webhook>> = [
    { title: "URL", wrap: "wide", cell: (webhook) => <span class="webhook-url">{webhook.url}</span> },
    {
      title: "Events",
      wrap: "wide",
      cell: (webhook) => (
        <span class="events">
          {webhook.events.map((each) => (
            <Badge key={each}>{each}</Badge>
          ))}
        </span>
      )
    },
    { title: "Created", cell: (webhook) => <Time at={webhook.created_at} /> },
    {
      title: "Actions",
      cell: (webhook) => (
        <span class="row-actions">
          <a
            href={href(projectId, "webhooks", undefined, { webhook: webhook.id })}
            aria-label={`Deliveries of ${webhook.url}`}
            aria-current={open === webhook.id ? "true" : undefined}
          >
            Deliveries
          </a>
          <button
            type="button"
            class="quiet"
            aria-label={`Delete ${webhook.url}`}
            disabled={action.busy}
            onClick={() => {
              action.clear()
              setDeleting(webhook)
            }}
          >
            Delete
          </button>
        </span>
      )
    }
  ]
  return (
    <>
      <h1>Webhooks</h1>
      <p class="hint">
        The project's subscriptions to its events, each delivered to its URL as a signed POST, at most 20 per project.
      </p>
      <Show loaded={loaded} what="the webhooks">
        {({ webhooks }) => {
          const shown = open === undefined ? undefined : webhooks.find((webhook) => webhook.id === open)
          return (
            <>
              <CaptionTable
                caption="Webhooks"
                columns={columns}
                rows={webhooks}
                rowKey={(webhook) => webhook.id}
                empty="No webhooks yet."
              />
              <ActionResult action={action} />
              {open === undefined ? null : shown ? (
                <DeliveryLog projectId={projectId} webhook={shown} status={status} />
              ) : (
                <p class="state error" role="alert">
                  This project has no webhook {open}. <a href={href(projectId, "webhooks")}>Show the webhooks</a>
                </p>
              )}
            </>
          )
        }}
      </Show>
      <CreateForm projectId={projectId} onCreated={reload} />
      <ConfirmDialog
        open={deleting !== undefined}
        title="Delete webhook"
        confirm="Delete"
        busy={action.busy}
        onConfirm={() => {
          if (deleting) void remove(deleting)
        }}
        onCancel={() => setDeleting(undefined)}
      >
        <p>
          Delete the webhook to <span class="webhook-url">{deleting?.url ?? ""}</span>? Its deliveries and their log go
          too; nothing more is sent to it.
        </p>
      </ConfirmDialog>
    </>
  )
}
