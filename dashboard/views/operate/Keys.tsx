/**
 * A project's API keys (docs/settings-plane.md "Admin API and command
 * line"): each by its name and visible prefix, when it was made, when it
 * expires and whether it is revoked; a new one with an expiry preset, shown
 * once; revoking one after a confirmation. The gateway refuses an API key's
 * session here (403): the view says so and asks nothing.
 */
import { useState } from "preact/hooks"
import { type ApiKeyCreated, type ApiKeyInfo, CreateApiKey } from "../../../schema/Admin.js"
import { Limits } from "../../../schema/Limits.js"
import { run } from "../../api.js"
import type { ViewProps } from "../../router.js"
import { Badge, Empty, Show, TableWrap, Time, useTitle } from "../../ui.js"
import { operate } from "./client.js"
import { ActionResult, ConfirmDialog, SecretOnce, useAction } from "./forms.js"
import { AdminOnly, checked } from "./parts.js"
import { useReloadable } from "./settings-parts.js"

type Key = typeof ApiKeyInfo.Type
type Created = typeof ApiKeyCreated.Type

const EXPIRY_CHOICES: ReadonlyArray<readonly [string, string]> = [
  ...Limits.apiKey.expiryPresetsDays.map((days): readonly [string, string] => [String(days), `${days} days`]),
  ["never", "Never"]
]
const expiryOf = (choice: string) => Limits.apiKey.expiryPresetsDays.find((days) => String(days) === choice) ?? null

/** What a key is called in the page: its name, else its prefix. */
const keyName = (key: Key): string => key.name ?? key.prefix

const KeyState = ({ apiKey, now }: { readonly apiKey: Key; readonly now: number }) => {
  if (apiKey.revoked_at) {
    return (
      <>
        <Badge tone="bad">Revoked</Badge> <Time at={apiKey.revoked_at} />
      </>
    )
  }
  if (apiKey.expires_at && apiKey.expires_at.getTime() <= now) return <Badge tone="warn">Expired</Badge>
  return <Badge tone="good">Active</Badge>
}

const KeyTable = (props: {
  readonly keys: ReadonlyArray<Key>
  readonly busy: boolean
  readonly onRevoke: (key: Key) => void
}) => {
  const now = Date.now()
  return props.keys.length === 0 ? (
    <Empty>This project has no API keys.</Empty>
  ) : (
    <TableWrap label="API keys">
      <table>
        <caption class="sr-only">API keys</caption>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Prefix</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">State</th>
            <th scope="col">
              <span class="sr-only">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {props.keys.map((key) => (
            <tr key={key.key_id}>
              <td>{key.name ?? <span class="muted">unnamed</span>}</td>
              <td>
                <code>{key.prefix}</code>
              </td>
              <td>
                <Time at={key.created_at} />
              </td>
              <td>{key.expires_at ? <Time at={key.expires_at} /> : "Never"}</td>
              <td>
                <KeyState apiKey={key} now={now} />
              </td>
              <td>
                {key.revoked_at ? null : (
                  <button type="button" class="quiet" disabled={props.busy} onClick={() => props.onRevoke(key)}>
                    Revoke {keyName(key)}
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  )
}

const CreateForm = ({
  projectId,
  reload
}: {
  readonly projectId: string
  /** Reads the list again; resolves once it is shown. */
  readonly reload: () => Promise<void>
}) => {
  const action = useAction()
  const [name, setName] = useState("")
  const [expires, setExpires] = useState("90")
  const [created, setCreated] = useState<Created | undefined>(undefined)
  const onSubmit = async (event: Event) => {
    event.preventDefault()
    setCreated(undefined)
    const given = name.trim()
    const made = await action.act(
      async () => {
        const payload = checked(CreateApiKey, {
          ...(given === "" ? {} : { name: given }),
          expires_in_days: expiryOf(expires)
        })
        const key = await run(operate().createApiKey({ path: { project_id: projectId }, payload }))
        await reload()
        return key
      },
      (key) => `Key ${given === "" ? key.prefix : given} created.`
    )
    if (made) {
      setCreated(made)
      setName("")
    }
  }
  return (
    <section aria-labelledby="create-key">
      <h2 id="create-key">New key</h2>
      <form class="setting-form key-form" onSubmit={onSubmit}>
        <div class="fields">
          <label>
            Name
            <input type="text" value={name} onInput={(event) => setName(event.currentTarget.value)} />
          </label>
          <label>
            Expires
            <select value={expires} onChange={(event) => setExpires(event.currentTarget.value)}>
              {EXPIRY_CHOICES.map(([id, label]) => (
                <option key={id} value={id}>
                  {label}
                </option>
              ))}
            </select>
          </label>
        </div>
        <div class="buttons">
          <button type="submit" disabled={action.busy}>
            Create key
          </button>
        </div>
        <ActionResult action={action} />
      </form>
      {created ? (
        <SecretOnce title="New API key" copyLabel="Copy key" value={created.api_key}>
          Shown this once: keep it now, it cannot be read again.{" "}
          {created.expires_at ? (
            <>
              It expires <Time at={created.expires_at} />.
            </>
          ) : (
            "It does not expire."
          )}
        </SecretOnce>
      ) : null}
    </section>
  )
}

export const Keys = ({ projectId, sessionKind }: ViewProps) => {
  useTitle("API keys")
  return (
    <div class="keys-view">
      <h1>API keys</h1>
      {sessionKind === "admin" ? <KeyList projectId={projectId} /> : <AdminOnly what="API keys" />}
    </div>
  )
}

const KeyList = ({ projectId }: { readonly projectId: string }) => {
  const { loaded, reload } = useReloadable(projectId, (signal) =>
    run(operate().listApiKeys({ path: { project_id: projectId } }), { signal })
  )
  const revoke = useAction()
  const [revoking, setRevoking] = useState<Key | undefined>(undefined)
  const confirm = async () => {
    const key = revoking
    if (!key) return
    await revoke.act(
      () => run(operate().revokeApiKey({ path: { project_id: projectId, key_id: key.key_id } })),
      () => `Key ${keyName(key)} revoked: it is refused from now on.`
    )
    setRevoking(undefined)
    reload()
  }
  return (
    <>
      <Show loaded={loaded} what="the API keys">
        {({ api_keys }) => (
          <>
            <KeyTable keys={api_keys} busy={revoke.busy} onRevoke={(key) => setRevoking(key)} />
            <ActionResult action={revoke} />
          </>
        )}
      </Show>
      <CreateForm projectId={projectId} reload={reload} />
      <ConfirmDialog
        open={revoking !== undefined}
        title="Revoke key"
        confirm="Revoke"
        busy={revoke.busy}
        onConfirm={confirm}
        onCancel={() => setRevoking(undefined)}
      >
        <p>
          {revoking ? (
            <>
              The key <strong>{keyName(revoking)}</strong> (<code>{revoking.prefix}</code>) will be refused from now on,
              and the dashboard sessions opened with it end. This cannot be undone.
            </>
          ) : null}
        </p>
      </ConfirmDialog>
    </>
  )
}
