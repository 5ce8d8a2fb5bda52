import type { ColumnType, Generated } from 'kysely';

/**
 * Row types as both dialects return them. Timestamps are ISO-8601 strings (the PostgreSQL pool parses
 * timestamptz to ISO), booleans may come back as 0/1 from SQLite and JSON columns as text from SQLite:
 * stores normalise with `readBool` and `readJson` from `./values.js`.
 */
type Timestamp = ColumnType<string, string, string>;
type Bool = ColumnType<boolean | number, boolean | number, boolean | number>;
/** A flag with a default: inserts may leave it out. */
type OptionalBool = ColumnType<boolean | number, boolean | number | undefined, boolean | number>;
type Json = ColumnType<unknown, string, string>;

export interface AccountsTable {
  id: string;
  name: string;
  created_at: Timestamp;
}

export interface UsersTable {
  id: string;
  account_id: string;
  name: string;
  password_hash: string | null;
  is_admin: Bool;
  created_at: Timestamp;
  /** Set by an administrator: every token and browser sign-in of the user stops working. */
  disabled_at: ColumnType<string | null, string | null | undefined, string | null>;
  /** Set by an administrator: sessions this user launches may get the operator's model gateway. */
  model_access: OptionalBool;
}

export interface ProjectsTable {
  id: string;
  account_id: string;
  name: string;
  slug: string;
  default_branch: string;
  repo_url: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The project opted into the operator's model gateway for its sessions. */
  bundled_model_access: OptionalBool;
}

export type ProjectRole = 'member' | 'admin';

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
  /** `admin` holds project.admin; `member` every other capability. */
  role: ColumnType<ProjectRole, ProjectRole | undefined, ProjectRole>;
  created_at: Timestamp;
}

export interface TokensTable {
  id: string;
  account_id: string;
  kind: 'user' | 'project' | 'sandbox';
  name: string;
  token_hash: string;
  user_id: string;
  project_id: string | null;
  capabilities: Json;
  created_at: Timestamp;
  expires_at: Timestamp | null;
  /** Sandbox and CLI tokens of a session; they go with it. */
  session_id?: ColumnType<string | null, string | null | undefined, string | null>;
  /** Set on clone credentials: the one ref they may push (`refs/heads/<session id>`). */
  push_ref?: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface SecretsTable {
  project_id: string;
  name: string;
  value: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface DashboardsTable {
  account_id: string;
  slug: string;
  title: string;
  subtitle: string | null;
  group_name: string | null;
  group_order: number | null;
  sort_order: number | null;
  tone: string | null;
  layout: string | null;
  version: number;
  created_at: Timestamp;
  updated_at: Timestamp;
  /** The project the dashboard belongs to (contract §3), or null. */
  project_id: string | null;
  /** The user who published it into its current owner (null for dashboards older than this column). */
  published_by: string | null;
}

export interface DashboardVersionsTable {
  account_id: string;
  slug: string;
  version: number;
  spec: string;
  created_at: Timestamp;
}

export interface SignInsTable {
  id_hash: string;
  user_id: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export type SessionStatus = 'queued' | 'branching' | 'provisioning' | 'running' | 'stopped' | 'failed' | 'completed';
export type SandboxState = 'provisioning' | 'active' | 'stopped' | 'error' | 'archived';
type Nullable<T> = ColumnType<T | null, T | null | undefined, T | null>;

export interface SessionsTable {
  id: string;
  project_id: string;
  account_id: Nullable<string>;
  status: SessionStatus;
  base_ref: string;
  branch: string;
  agent: string | null;
  model: string | null;
  trigger_slug: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  last_activity_at: Nullable<string>;
  /** Why the session or its sandbox failed, as a sentence. */
  error: Nullable<string>;
  runtime_session_id: Nullable<string>;
  initial_prompt: Nullable<string>;
  initial_prompt_sent_at: Nullable<string>;
  lease_expires_at: Nullable<string>;
  sandbox_provider: Nullable<string>;
  sandbox_state: Nullable<SandboxState>;
  /** The provider's own handle of the sandbox (a directory, a container id). */
  sandbox_ref: Nullable<string>;
  /** Where the control plane reaches the sandbox's daemon. */
  daemon_url: Nullable<string>;
  /** Since when a failed session's sandbox has waited to be stopped (its Docker engine did not answer as it failed). */
  sandbox_unstopped_since: Nullable<string>;
}

/** The runtime's messages as JSON text (bounded; the oldest left out past the bound, counted). */
export interface SessionConversationsTable {
  session_id: string;
  messages: string;
  omitted_messages: number;
  captured_at: Timestamp;
}

export interface SessionMessagesTable {
  id: string;
  session_id: string;
  seq: number;
  text: string;
  /** `api` (a person or agent), `feedback` (a CR's requested changes), `trigger`. */
  source: string;
  /** `delivering` while one replica is handing it to the runtime. */
  status: 'pending' | 'delivering' | 'delivered' | 'failed';
  attempts: ColumnType<number, number | undefined, number>;
  last_error: string | null;
  created_at: Timestamp;
  delivered_at: Nullable<string>;
}

export interface ChangeRequestCountersTable {
  project_id: string;
  last_number: number;
}

export type ChangeRequestStatus = 'open' | 'merged' | 'closed';

export interface ChangeRequestsTable {
  id: string;
  account_id: string;
  project_id: string;
  number: number;
  title: string;
  description: string;
  base_ref: string;
  head_ref: string;
  status: ChangeRequestStatus;
  head_commit_sha: string | null;
  base_commit_sha: string | null;
  origin_session_id: string | null;
  created_by: string;
  merged_at: Timestamp | null;
  merged_by: string | null;
  merge_commit_sha: string | null;
  closed_at: Timestamp | null;
  closed_by: string | null;
  metadata: Json;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface FeedbackDeliveriesTable {
  id: string;
  cr_id: string;
  session_id: string;
  text: string;
  by: string;
  at: Timestamp;
  status: 'pending' | 'delivered' | 'failed';
  attempts: number;
  last_error: string | null;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface MergeIntentsTable {
  cr_id: string;
  project_id: string;
  base_ref: string;
  base_sha_before: string;
  head_sha: string;
  merge_commit_sha: string;
  fast_forward: Bool;
  merged_by: string;
  created_at: Timestamp;
  /** The merge (or settlement) holding the intent; null on rows from before heartbeats. */
  owner: string | null;
  /** The database clock (ms since 1970) when the owner last said it is alive; see merge-intent-lease.ts. */
  heartbeat_ms: number | null;
}

export interface TaskLeasesTable {
  name: string;
  /** The replica holding the lease (its process's random id). */
  holder: string;
  expires_at: Timestamp;
}

export interface TriggerManifestsTable {
  project_id: string;
  /** The default-branch commit the triggers were read from; null when the branch has no commit yet. */
  commit_sha: string | null;
  /** `svc.yaml`, `svc.yml` or `svc.toml`; null when the branch has no manifest. */
  path: string | null;
  /** The listing's `errors`: `[{index, slug, message}]`. */
  errors: Json;
  synced_at: Timestamp;
}

export type TriggerFireSource = 'cron' | 'webhook' | 'manual';
/** `fired`: its session is (being) started; `queued`: waiting for a free slot; `duplicate`: a repeated delivery. */
export type TriggerFireStatus = 'fired' | 'queued' | 'duplicate' | 'failed';

export interface TriggersTable {
  project_id: string;
  slug: string;
  /** Order in the manifest, so the listing follows it. */
  position: number;
  type: 'cron' | 'webhook';
  enabled: Bool;
  /** The normalized manifest entry (manifest-schema.ts NormalizedTrigger). */
  definition: Json;
  next_fire_at: Nullable<string>;
  last_fired_at: Nullable<string>;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface TriggerFiresTable {
  id: string;
  project_id: string;
  account_id: string;
  trigger_slug: string;
  source: TriggerFireSource;
  status: TriggerFireStatus;
  /** The session the fire started or re-prompted (decided when it was recorded; a fresh session's id too). */
  session_id: Nullable<string>;
  session_mode: string;
  /** `new` (a fresh session under session_id), `existing` (a message to session_id), `undecided` (a cron fire, decided when it starts). */
  target: 'new' | 'existing' | 'undecided';
  /** The session-mode fallback taken, as a sentence (pinned session gone → reused or fresh). */
  fallback: Nullable<string>;
  reason: Nullable<string>;
  /** The rendered prompt: the session's initial prompt, or the message to the reused one. */
  prompt: string;
  agent: Nullable<string>;
  model: Nullable<string>;
  /** Whose authority the session runs under: the manual actor, else the project's creator. */
  actor_user_id: string;
  /** X-GitHub-Delivery or webhook-id: a repeat within 24 h is a duplicate. */
  delivery_id: Nullable<string>;
  fired_at: Timestamp;
  /** Cron fires: the scheduled instant (fired_at minus due_at is how late it fired). */
  due_at: Nullable<string>;
  /** When its session was created or re-prompted; null while it waits (recorded, queued). */
  started_at: Nullable<string>;
  claimed_by: Nullable<string>;
  claimed_until: Nullable<string>;
  attempts: ColumnType<number, number | undefined, number>;
}

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  tokens: TokensTable;
  secrets: SecretsTable;
  dashboards: DashboardsTable;
  dashboard_versions: DashboardVersionsTable;
  sign_ins: SignInsTable;
  sessions: SessionsTable;
  change_request_counters: ChangeRequestCountersTable;
  change_requests: ChangeRequestsTable;
  feedback_deliveries: FeedbackDeliveriesTable;
  merge_intents: MergeIntentsTable;
  task_leases: TaskLeasesTable;
  session_messages: SessionMessagesTable;
  session_conversations: SessionConversationsTable;
  trigger_manifests: TriggerManifestsTable;
  triggers: TriggersTable;
  trigger_fires: TriggerFiresTable;
}

export type { Generated };
