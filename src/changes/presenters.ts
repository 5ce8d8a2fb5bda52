import type { MergePreview } from '../git/index.js';
import { readJson } from '../db/values.js';
import type { ChangeRequestMetadata, ChangeRequestRow } from './change-request-row.js';

/** The serialized CR: exactly the keys of spec 2's field table, in its order. Internal columns never leak. */
export function presentChangeRequest(row: ChangeRequestRow) {
  return {
    cr_id: row.id,
    account_id: row.account_id,
    project_id: row.project_id,
    number: row.number,
    title: row.title,
    description: row.description,
    base_ref: row.base_ref,
    head_ref: row.head_ref,
    status: row.status,
    head_commit_sha: row.head_commit_sha,
    base_commit_sha: row.base_commit_sha,
    origin_session_id: row.origin_session_id,
    created_by: row.created_by,
    merged_at: row.merged_at,
    merged_by: row.merged_by,
    merge_commit_sha: row.merge_commit_sha,
    closed_at: row.closed_at,
    closed_by: row.closed_by,
    metadata: readJson<ChangeRequestMetadata>(row.metadata, {}),
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export type PresentedChangeRequest = ReturnType<typeof presentChangeRequest>;

/** The merge preview object of spec 2: the git layer's preview under the spec's key names. */
export function presentMergePreview(preview: MergePreview) {
  return {
    base_sha: preview.baseSha,
    head_sha: preview.headSha,
    merge_base: preview.mergeBase,
    is_up_to_date: preview.isUpToDate,
    can_merge: preview.canMerge,
    can_fast_forward: preview.canFastForward,
    conflicts: preview.conflicts,
  };
}
