import { Type, type TSchema } from 'typebox';
import { MAX_DESCRIPTION_LENGTH, MAX_FEEDBACK_LENGTH, MAX_TITLE_LENGTH } from './input-rules.js';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Branch names are checked with git's own rules by the operation (issues name the rule broken). */
const BranchField = Type.String({ minLength: 1, maxLength: 255, description: 'A git branch name (or refs/heads/<name>)' });

const TitleField = Type.String({ description: `What the change does: 1 to ${MAX_TITLE_LENGTH} characters after trimming` });

export const ChangeRequestParams = Type.Object({
  id: Type.String({ description: 'Project id (UUID)' }),
  crId: Type.String({ description: 'The cr_id (UUID) or the per-project number' }),
});

export const ProjectParams = Type.Object({ id: Type.String({ description: 'Project id (UUID)' }) });

export const ListQuery = Type.Object(
  { status: Type.Optional(Type.Union([Type.Literal('open'), Type.Literal('merged'), Type.Literal('closed'), Type.Literal('all')], { default: 'all' })) },
  { additionalProperties: false },
);

export const CreateBody = Type.Object(
  {
    // Emptiness and length after trimming are checked by the operation, with the rest of the request
    // (a schema limit here would state a second, different maximum).
    title: TitleField,
    description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })),
    head_ref: BranchField,
    base_ref: Type.Optional(BranchField),
    session_id: Type.Optional(Type.String({ maxLength: 255, description: 'The session opening the CR; an unknown id is dropped' })),
  },
  { additionalProperties: false },
);

export const UpdateBody = Type.Object(
  { title: Type.Optional(TitleField), description: Type.Optional(Type.String({ maxLength: MAX_DESCRIPTION_LENGTH })) },
  { additionalProperties: false },
);

export const MergeBody = Type.Object(
  { message: Type.Optional(Type.String({ maxLength: 65_536, description: 'Merge commit message; default "Merge CR #<n>: <title>"' })) },
  { additionalProperties: false },
);

export const RequestChangesBody = Type.Object({ feedback: Type.String({ minLength: 1, maxLength: MAX_FEEDBACK_LENGTH }) }, { additionalProperties: false });

export const RequestedChange = Type.Object({ text: Type.String(), by: Type.String(), at: Type.String() });

/** Exactly the keys of spec 2's field table (see presentChangeRequest). */
export const ChangeRequest = Type.Object({
  cr_id: Type.String(),
  account_id: Type.String(),
  project_id: Type.String(),
  number: Type.Integer(),
  title: Type.String(),
  description: Type.String(),
  base_ref: Type.String(),
  head_ref: Type.String(),
  status: Type.Union([Type.Literal('open'), Type.Literal('merged'), Type.Literal('closed')]),
  head_commit_sha: Nullable(Type.String()),
  base_commit_sha: Nullable(Type.String()),
  origin_session_id: Nullable(Type.String()),
  created_by: Type.String(),
  merged_at: Nullable(Type.String()),
  merged_by: Nullable(Type.String()),
  merge_commit_sha: Nullable(Type.String()),
  closed_at: Nullable(Type.String()),
  closed_by: Nullable(Type.String()),
  metadata: Type.Object(
    { requested_changes: Type.Optional(Type.Array(RequestedChange)) },
    { additionalProperties: true, description: 'Free-form; requested_changes holds the request-changes entries' },
  ),
  created_at: Type.String(),
  updated_at: Type.String(),
});

export const ChangeRequestEnvelope = Type.Object({ change_request: ChangeRequest });

export const MergeResult = Type.Object({ change_request: ChangeRequest, merge_commit_sha: Type.String(), fast_forward: Type.Boolean() });

export const MergePreview = Type.Object({
  base_sha: Type.String(),
  head_sha: Type.String(),
  merge_base: Nullable(Type.String()),
  is_up_to_date: Type.Boolean(),
  can_merge: Type.Boolean(),
  can_fast_forward: Type.Boolean(),
  conflicts: Type.Array(Type.String()),
});

export const DiffFile = Type.Object({
  path: Type.String(),
  old_path: Type.String(),
  status: Type.Union([Type.Literal('added'), Type.Literal('modified'), Type.Literal('deleted')]),
  additions: Type.Integer(),
  deletions: Type.Integer(),
});

/** A file of a truncated diff whose patch is left out says why in `note`. */
export const DiffFileWithNote = Type.Object({ ...DiffFile.properties, note: Type.Optional(Type.String()) });

export const Diff = Type.Object({
  files: Type.Array(DiffFileWithNote),
  additions: Type.Integer(),
  deletions: Type.Integer(),
  patch: Type.String(),
  /** True when some files' patches are left out of `patch` (each such file has a `note`). */
  truncated: Type.Boolean(),
});
