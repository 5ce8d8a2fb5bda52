/**
 * Every error code the API answers with, its HTTP status and when it happens.
 * The README's error table is checked against this list by a test, so the docs cannot drift.
 */
export const errorCatalog = {
  BAD_REQUEST: { status: 400, when: 'malformed JSON, wrong content type, bytes that are not UTF-8, a bad path parameter, a URL or web form field with a NUL character (`%00`), a request that is not valid HTTP' },
  VALIDATION_FAILED: { status: 400, when: 'a request body or query that breaks the route schema; `issues` lists each problem' },
  SECRET_NAME_RESERVED: { status: 400, when: 'a project secret whose name starts with `SVC_`' },
  UNAUTHENTICATED: { status: 401, when: 'no token, an unknown token, or a token of the wrong kind for the route' },
  FORBIDDEN: { status: 403, when: 'the token lacks access to the project or a capability the route needs' },
  NOT_FOUND: { status: 404, when: 'unknown project, change request, dashboard, token, secret or route' },
  REQUEST_TIMEOUT: { status: 408, when: 'the request did not arrive in full within the server time limit' },
  CONFLICT: { status: 409, when: 'a state conflict no other 409 code names (an administrator disabling themself)' },
  NAME_TAKEN: { status: 409, reasonOf: 'CONFLICT', when: 'a user name or project slug that is already in use' },
  CR_WRONG_STATUS: { status: 409, reasonOf: 'CONFLICT', when: 'the change request\'s status does not allow the action: merge or request-changes on a CR that is not open, close on a merged CR, reopen on one that is not closed' },
  CR_ALREADY_OPEN: { status: 409, reasonOf: 'CONFLICT', when: 'another change request is already open for the same head → base; `number` and `cr_id` name it when it is visible' },
  MERGE_CONFLICT: { status: 409, when: 'a merge whose branches conflict; `conflicts` lists the paths' },
  UNRELATED_HISTORIES: { status: 409, reasonOf: 'CONFLICT', when: 'a merge of branches with no common commit; `conflicts` is empty' },
  MERGE_IN_PROGRESS: { status: 409, reasonOf: 'CONFLICT', when: 'another request is merging this change request right now; check it again in a moment' },
  BASE_MOVED: { status: 409, reasonOf: 'CONFLICT', when: 'the base branch kept moving while the merge was computed, attempt after attempt; try again' },
  PUSH_REFUSED: { status: 409, reasonOf: 'CONFLICT', when: 'the repository (a mirror\'s upstream) refused to move the base branch, e.g. by branch protection; svc never forces' },
  BRANCH_MISSING: { status: 409, reasonOf: 'CONFLICT', when: 'a branch the request needs (a CR\'s head or base, a new default branch) does not exist in the repository' },
  COMMITS_MISSING: { status: 409, reasonOf: 'CONFLICT', when: 'a change request names commits that are no longer in the repository (its branch was rewritten upstream)' },
  REPOSITORY_EMPTY: { status: 409, reasonOf: 'CONFLICT', when: 'the project\'s repository has no commits or branches yet (a session to start, a default branch to choose)' },
  FEEDBACK_FULL: { status: 409, reasonOf: 'CONFLICT', when: 'a change request already holds as many requested changes, or as much text, as one CR keeps' },
  SESSION_NOT_RUNNING: { status: 409, reasonOf: 'CONFLICT', when: 'a session whose sandbox is not running (stop, or a request to its runtime); resume it first' },
  SESSION_DELETED: { status: 409, reasonOf: 'CONFLICT', when: 'a deleted session (resume, send a message); start a new one' },
  CONCURRENT_PUBLISH: { status: 409, reasonOf: 'CONFLICT', when: 'a dashboard being published by another request at the same moment; retry' },
  VERSION_MISMATCH: { status: 412, when: '`If-Match` names a version other than the stored one' },
  METHOD_NOT_ALLOWED: { status: 405, when: "a sandbox daemon's control path (`/svc/…`) asked with the wrong method; the message names the right one" },
  PAYLOAD_TOO_LARGE: { status: 413, when: 'a body over the route limit (dashboards 16 MiB, other JSON 1 MiB)' },
  DASHBOARD_INVALID: { status: 422, when: 'a dashboard spec that breaks spec 1; `issues` lists every violation' },
  MANIFEST_INVALID: { status: 422, when: 'the head branch `svc.yaml`/`svc.toml` fails validation on merge; `issues` lists them' },
  CR_HEAD_NOT_AHEAD: { status: 422, when: 'a change request whose head has no commit that base lacks' },
  DIFF_TOO_LARGE: { status: 422, when: 'a change request diff whose list of changed files alone is over 64 MiB (a large patch is truncated instead)' },
  TOO_MANY_SESSIONS: { status: 429, when: 'the account already has `SVC_MAX_SESSIONS` sessions provisioning or running (create, resume, a waking message)' },
  HEADERS_TOO_LARGE: { status: 431, when: 'the request headers are over the server limit (16 KiB in all)' },
  INTERNAL: { status: 500, when: 'a fault inside svc; the log has the details' },
  UPSTREAM_UNAVAILABLE: { status: 502, when: 'the project repository (a mirror of another git host) cannot be reached' },
  BAD_GATEWAY: { status: 502, when: "nothing answers on the sandbox port that `…/ports/:port/*` (or the daemon's `/proxy/{port}/*`) reaches" },
  RUNTIME_STARTING: { status: 503, when: "the session's agent runtime is still starting (or restarting); `…/runtime/*` answers this until it is ready, so try again in a few seconds" },
  RENDER_TIMEOUT: { status: 503, when: 'laying out a dashboard page took longer than `SVC_RENDER_TIMEOUT_MS` (a chart drawing that does only fails its own chart)' },
} as const satisfies Record<string, { status: number; when: string; reasonOf?: 'CONFLICT' }>;

export type ErrorCode = keyof typeof errorCatalog;

/** One problem in a document, located by a JSON pointer (RFC 6901). */
export interface Issue {
  path: string;
  message: string;
}

/** The cap on reported issues: enough to fix a document, small enough to read. */
export const MAX_ISSUES = 100;

/**
 * A failure the client can act on. Services throw it; the server's error handler turns it into
 * `{"error": message, "code": code, ...extra}` with the catalog's status.
 */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly extra: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, extra: Record<string, unknown> = {}) {
    super(message);
    this.name = 'AppError';
    this.code = code;
    this.extra = extra;
  }

  get status(): number {
    return errorCatalog[this.code].status;
  }

  /**
   * The contract answers every state conflict with code `CONFLICT`; the situation a client must tell apart
   * travels beside it as `reason` (e.g. `CR_WRONG_STATUS`), so both the contract and the finer code hold.
   */
  toBody(): Record<string, unknown> {
    const entry = errorCatalog[this.code];
    if ('reasonOf' in entry) return { error: this.message, code: entry.reasonOf, reason: this.code, ...this.extra };
    return { error: this.message, code: this.code, ...this.extra };
  }
}

export function notFound(what: string, id: string): AppError {
  return new AppError('NOT_FOUND', `No ${what} ${JSON.stringify(id)} exists, or it is not visible to this token.`);
}

export function badRequest(message: string): AppError {
  return new AppError('BAD_REQUEST', message);
}

export function conflict(message: string, extra: Record<string, unknown> = {}): AppError {
  return new AppError('CONFLICT', message, extra);
}

/*
 * One constructor per situation a client tells apart by its code (all 409): the call site words the
 * sentence, the code says which situation it is.
 */
export const nameTaken = (message: string): AppError => new AppError('NAME_TAKEN', message);
export const crWrongStatus = (message: string): AppError => new AppError('CR_WRONG_STATUS', message);
export const crAlreadyOpen = (message: string, existing: { cr_id: string; number: number } | Record<string, never> = {}): AppError => new AppError('CR_ALREADY_OPEN', message, existing);
export const mergeConflict = (message: string, conflicts: readonly string[]): AppError => new AppError('MERGE_CONFLICT', message, { conflicts: [...conflicts] });
export const unrelatedHistories = (message: string): AppError => new AppError('UNRELATED_HISTORIES', message, { conflicts: [] });
export const mergeInProgress = (message: string): AppError => new AppError('MERGE_IN_PROGRESS', message);
export const baseMoved = (message: string): AppError => new AppError('BASE_MOVED', message);
export const pushRefused = (message: string): AppError => new AppError('PUSH_REFUSED', message);
export const branchMissing = (message: string): AppError => new AppError('BRANCH_MISSING', message);
export const commitsMissing = (message: string): AppError => new AppError('COMMITS_MISSING', message);
export const repositoryEmpty = (message: string): AppError => new AppError('REPOSITORY_EMPTY', message);
export const feedbackFull = (message: string): AppError => new AppError('FEEDBACK_FULL', message);
export const sessionNotRunning = (message: string): AppError => new AppError('SESSION_NOT_RUNNING', message);
export const sessionDeleted = (message: string): AppError => new AppError('SESSION_DELETED', message);
export const concurrentPublish = (message: string): AppError => new AppError('CONCURRENT_PUBLISH', message);

export function validationFailed(issues: Issue[], summary?: string): AppError {
  const shown = issues.slice(0, MAX_ISSUES);
  const first = shown[0];
  const message =
    summary ??
    (first
      ? `The request is invalid: ${first.path || '(body)'}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more; see issues)` : ''}`
      : 'The request is invalid.');
  return new AppError('VALIDATION_FAILED', message, { issues: shown });
}
