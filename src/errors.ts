/**
 * Every error code the API answers with, its HTTP status and when it happens.
 * The README's error table is checked against this list by a test, so the docs cannot drift.
 */
export const errorCatalog = {
  BAD_REQUEST: { status: 400, when: 'malformed JSON, wrong content type, bytes that are not UTF-8, a bad path parameter, a request that is not valid HTTP' },
  VALIDATION_FAILED: { status: 400, when: 'a request body or query that breaks the route schema; `issues` lists each problem' },
  SECRET_NAME_RESERVED: { status: 400, when: 'a project secret whose name starts with `SVC_`' },
  UNAUTHENTICATED: { status: 401, when: 'no token, an unknown token, or a token of the wrong kind for the route' },
  FORBIDDEN: { status: 403, when: 'the token lacks access to the project or a capability the route needs' },
  NOT_FOUND: { status: 404, when: 'unknown project, change request, dashboard, token, secret or route' },
  REQUEST_TIMEOUT: { status: 408, when: 'the request did not arrive in full within the server time limit' },
  CONFLICT: { status: 409, when: 'the resource is not in a state that allows the operation, or a unique name is taken' },
  MERGE_CONFLICT: { status: 409, when: 'a merge whose branches conflict; `conflicts` lists the paths' },
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
} as const satisfies Record<string, { status: number; when: string }>;

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

  toBody(): Record<string, unknown> {
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
