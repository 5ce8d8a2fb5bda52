import type { ColumnType, Generated } from 'kysely';

/**
 * Row types as both dialects return them. Timestamps are ISO-8601 strings (the PostgreSQL pool parses
 * timestamptz to ISO), booleans may come back as 0/1 from SQLite and JSON columns as text from SQLite:
 * stores normalise with `readBool` and `readJson` from `./values.js`.
 */
type Timestamp = ColumnType<string, string, string>;
type Bool = ColumnType<boolean | number, boolean | number, boolean | number>;
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
}

export interface ProjectMembersTable {
  project_id: string;
  user_id: string;
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
}

export interface DashboardVersionsTable {
  account_id: string;
  slug: string;
  version: number;
  spec: string;
  created_at: Timestamp;
}

export interface WebSessionsTable {
  id_hash: string;
  user_id: string;
  account_id: string;
  created_at: Timestamp;
  expires_at: Timestamp;
}

export interface SessionsTable {
  id: string;
  project_id: string;
  status: string;
  base_ref: string;
  branch: string;
  agent: string | null;
  model: string | null;
  trigger_slug: string | null;
  created_by: string;
  created_at: Timestamp;
  updated_at: Timestamp;
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

export interface Database {
  accounts: AccountsTable;
  users: UsersTable;
  projects: ProjectsTable;
  project_members: ProjectMembersTable;
  tokens: TokensTable;
  secrets: SecretsTable;
  dashboards: DashboardsTable;
  dashboard_versions: DashboardVersionsTable;
  web_sessions: WebSessionsTable;
  sessions: SessionsTable;
  change_request_counters: ChangeRequestCountersTable;
  change_requests: ChangeRequestsTable;
  feedback_deliveries: FeedbackDeliveriesTable;
  merge_intents: MergeIntentsTable;
}

export type { Generated };
