import { ApiError, type ApiClient } from '../api-client.js';
import type { CliDeps } from '../deps.js';
import { bold, colour, printJson, timeCell } from '../output.js';
import { peopleNames } from '../people.js';
import { crPath, pluralise, projectClient, shortSha, withHints, type ChangeRequest, type MergePreview } from './change-request-api.js';
import { statusLabel } from './status-label.js';

export interface CrShowOptions {
  project?: string;
  json?: boolean;
}

/**
 * `svc cr show <cr>`: the CR's metadata and, for an open CR, its merge preview (spec 2), so an agent can
 * confirm a clean merge after resolving conflicts. `--json` prints `{change_request, merge_preview}`, and
 * `merge_preview_error` (`{error, code}`) when the server could not preview the merge.
 */
export async function runCrShow(cr: string, options: CrShowOptions, deps: CliDeps): Promise<void> {
  const { client, base, projectId } = await projectClient(options, deps);
  const { body } = await withHints(() => client.request<{ change_request: ChangeRequest }>('GET', crPath(base, cr)));
  const changeRequest = body.change_request;
  const preview = changeRequest.status === 'open' ? await fetchPreview(client, crPath(base, String(changeRequest.number), 'merge-preview')) : null;
  if (options.json) {
    return printJson(deps, {
      change_request: changeRequest,
      merge_preview: preview?.ok ? preview.value : null,
      ...(preview && !preview.ok ? { merge_preview_error: preview.error } : {}),
    });
  }
  const requested = changeRequest.metadata.requested_changes ?? [];
  const nameOf = await peopleNames(client, projectId, [changeRequest.created_by, changeRequest.merged_by, changeRequest.closed_by, ...requested.map((entry) => entry.by)]);
  if (deps.isTTY) printForTerminal(deps, changeRequest, preview, nameOf);
  else printForPipe(deps, changeRequest, preview, nameOf);
}

/** A preview, or why the server could not make one (a branch deleted, the upstream unreachable). */
type PreviewOutcome = { ok: true; value: MergePreview } | { ok: false; error: { error: string; code: string } };

/** The CR is shown even when its preview fails: the metadata is what was asked for, the preview says why it is missing. */
async function fetchPreview(client: ApiClient, path: string): Promise<PreviewOutcome> {
  try {
    return { ok: true, value: (await client.request<MergePreview>('GET', path)).body };
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    return { ok: false, error: { error: error.body.error ?? `the server answered ${error.status}`, code: error.body.code ?? 'UNKNOWN' } };
  }
}

type NameOf = (id: string | null | undefined) => string;

function printForTerminal(deps: CliDeps, cr: ChangeRequest, preview: PreviewOutcome | null, nameOf: NameOf): void {
  const out = (line = '') => deps.stdout.write(`${line}\n`);
  out(`${bold(deps, `#${cr.number} ${cr.title}`)}  ${statusLabel(deps, cr.status)}`);
  out(`${cr.head_ref} → ${cr.base_ref}  ${colour(deps, 'dim', `(head ${shortSha(cr.head_commit_sha)}, base ${shortSha(cr.base_commit_sha)})`)}`);
  out(`opened ${timeCell(deps, cr.created_at)} by ${nameOf(cr.created_by)}${cr.origin_session_id ? ` from session ${cr.origin_session_id}` : ''}`);
  if (cr.merged_at) out(`merged ${timeCell(deps, cr.merged_at)} by ${nameOf(cr.merged_by)} as ${shortSha(cr.merge_commit_sha)}`);
  if (cr.closed_at) out(`closed ${timeCell(deps, cr.closed_at)} by ${nameOf(cr.closed_by)}`);
  if (cr.description) {
    out();
    for (const line of cr.description.split('\n')) out(`  ${line}`);
  }
  if (preview?.ok) {
    out();
    out(describePreview(deps, cr, preview.value));
    for (const path of preview.value.conflicts) out(`  ${colour(deps, 'red', path)}`);
  } else if (preview) {
    out();
    out(colour(deps, 'red', `✗ No merge preview: ${preview.error.error} (${preview.error.code})`));
  }
  const requested = cr.metadata.requested_changes ?? [];
  if (requested.length > 0) {
    out();
    out(bold(deps, 'Requested changes'));
    for (const entry of requested) out(`  - ${entry.text} ${colour(deps, 'dim', `(${nameOf(entry.by)}, ${timeCell(deps, entry.at)})`)}`);
  }
}

function describePreview(deps: CliDeps, cr: ChangeRequest, preview: MergePreview): string {
  if (preview.is_up_to_date) return colour(deps, 'green', `✓ ${cr.head_ref} is already contained in ${cr.base_ref}; merging records it as merged.`);
  if (preview.merge_base === null) return colour(deps, 'red', `✗ ${cr.head_ref} and ${cr.base_ref} have unrelated histories; svc will not merge them.`);
  if (preview.can_fast_forward) return colour(deps, 'green', `✓ Can merge: ${cr.base_ref} fast-forwards to ${shortSha(preview.head_sha)}.`);
  if (preview.can_merge) return colour(deps, 'green', '✓ Can merge: no conflicts (a merge commit will be made).');
  return colour(
    deps,
    'red',
    `✗ Conflicts in ${pluralise(preview.conflicts.length, 'file')}: merge ${cr.base_ref} into ${cr.head_ref}, resolve, commit and push, then run svc cr show ${cr.number} again.`,
  );
}

/** `key<TAB>value` lines: stable for scripts. */
function printForPipe(deps: CliDeps, cr: ChangeRequest, preview: PreviewOutcome | null, nameOf: NameOf): void {
  const rows: Array<[string, string | number | boolean | null]> = [
    ['number', cr.number],
    ['cr_id', cr.cr_id],
    ['title', cr.title],
    ['status', cr.status],
    ['head_ref', cr.head_ref],
    ['base_ref', cr.base_ref],
    ['head_commit_sha', cr.head_commit_sha],
    ['base_commit_sha', cr.base_commit_sha],
    ['merge_commit_sha', cr.merge_commit_sha],
    ['origin_session_id', cr.origin_session_id],
    ['created_by', cr.created_by],
    ['created_by_name', nameOf(cr.created_by)],
    ['merged_by_name', cr.merged_by ? nameOf(cr.merged_by) : null],
    ['closed_by_name', cr.closed_by ? nameOf(cr.closed_by) : null],
    ['created_at', cr.created_at],
    ['updated_at', cr.updated_at],
    ['merged_at', cr.merged_at],
    ['closed_at', cr.closed_at],
  ];
  if (preview?.ok) {
    const { value } = preview;
    rows.push(['can_merge', value.can_merge], ['can_fast_forward', value.can_fast_forward], ['is_up_to_date', value.is_up_to_date]);
    rows.push(['merge_base', value.merge_base], ['conflicts', value.conflicts.join(' ')]);
  } else if (preview) {
    rows.push(['merge_preview_error', `${preview.error.error} (${preview.error.code})`]);
  }
  for (const [key, value] of rows) {
    if (value !== null) deps.stdout.write(`${key}\t${String(value).replace(/[\t\r\n]+/g, ' ')}\n`);
  }
}
