import type { Credentials } from './cli-config.js';
import { CliError } from './deps.js';

export interface ApiErrorBody {
  error?: string;
  code?: string;
  issues?: Array<{ path: string; message: string }>;
  total?: number;
  conflicts?: string[];
}

export class ApiError extends CliError {
  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    details: string[],
    headline = body.error ?? `the server answered ${status}`,
  ) {
    super(`${headline}${body.code ? ` (${body.code})` : ''}`, 1, details);
    this.name = 'ApiError';
  }
}

/** What each problem list is about, as the person at the terminal knows it. */
const LISTED_SUBJECTS: Record<string, string> = {
  DASHBOARD_INVALID: 'The dashboard spec',
  VALIDATION_FAILED: 'What you gave',
  MANIFEST_INVALID: 'The manifest (svc.yaml or svc.toml) on the head branch',
};

/**
 * The API's error as the CLI says it. Where the answer lists problems, the headline counts them and the
 * lines below give each once: the API's own sentence repeats the first one and points at its `issues`
 * field, which a CLI user never sees. Problems with the request body name the command's options
 * (`--repo-url`), not the API's fields (`/repo_url`).
 */
export function cliApiError(status: number, body: ApiErrorBody, fieldNames: Record<string, string> | null): ApiError {
  const issues = body.issues ?? [];
  if (issues.length === 0) return new ApiError(status, body, describeIssues(body));
  const named = fieldNames && body.code === 'VALIDATION_FAILED' ? issues.map((issue) => ({ ...issue, path: cliFieldName(issue.path, fieldNames) })) : issues;
  const count = body.total ?? issues.length;
  const subject = LISTED_SUBJECTS[body.code ?? ''] ?? 'The request';
  const headline = `${subject} has ${count} problem${count === 1 ? '' : 's'}; fix ${count === 1 ? 'it' : 'them'} and run the command again`;
  return new ApiError(status, body, describeIssues({ ...body, issues: named }), headline);
}

/** `/repo_url` → `--repo-url` (or the name the command gives it, such as `<name>` for an argument). */
function cliFieldName(pointer: string, fieldNames: Record<string, string>): string {
  const field = pointer.split('/')[1];
  if (!field) return pointer;
  return fieldNames[field] ?? `--${field.replace(/_/g, '-')}`;
}

export interface RequestOptions {
  body?: unknown;
  /** Sent verbatim as the JSON body (e.g. a dashboard file), so large documents are not re-serialised. */
  rawJson?: string;
  headers?: Record<string, string>;
  accept?: string;
  /**
   * How the command's user gives each field of `body`, for messages about them: `{ name: '<name>' }`.
   * A field not named here is shown as its option (`repo_url` as `--repo-url`).
   */
  fieldNames?: Record<string, string>;
}

/** Talks to the control plane over HTTP; the only way the CLI reaches svc. */
export class ApiClient {
  readonly apiUrl: string;
  readonly origin: string;

  constructor(private readonly credentials: Credentials) {
    this.apiUrl = credentials.apiUrl;
    this.origin = credentials.apiUrl.replace(/\/v1$/, '');
  }

  /** `path` starting with /v1 or /api is taken from the origin. */
  async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<{ status: number; body: T; text: string; headers: Headers }> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.credentials.token}`, accept: options.accept ?? 'application/json', ...options.headers };
    let body: string | undefined;
    if (options.rawJson !== undefined) body = options.rawJson;
    else if (options.body !== undefined) body = JSON.stringify(options.body);
    if (body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(this.origin + path, { method, headers, body });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new CliError(`Cannot reach svc at ${this.origin} (${cause}); check SVC_API_URL or run svc login --url <server>.`);
    }
    const text = await response.text();
    const json = (response.headers.get('content-type') ?? '').includes('json') && text ? (JSON.parse(text) as unknown) : undefined;
    if (!response.ok) {
      const errorBody = (json ?? { error: text.slice(0, 500) || `HTTP ${response.status}` }) as ApiErrorBody;
      throw cliApiError(response.status, errorBody, options.body !== undefined ? (options.fieldNames ?? {}) : null);
    }
    return { status: response.status, body: (json ?? text) as T, text, headers: response.headers };
  }
}

/** An answer read as it arrives (an event stream), for commands that follow something live. */
export async function openStream(client: ApiClient, credentials: Credentials, path: string, signal?: AbortSignal): Promise<Response> {
  const response = await fetch(client.origin + path, { headers: { authorization: `Bearer ${credentials.token}`, accept: 'text/event-stream' }, ...(signal ? { signal } : {}) });
  if (!response.ok) {
    const text = await response.text();
    const body = ((response.headers.get('content-type') ?? '').includes('json') && text ? JSON.parse(text) : { error: text || `HTTP ${response.status}` }) as ApiErrorBody;
    throw cliApiError(response.status, body, null);
  }
  return response;
}

/**
 * One line per problem, `path: message`, as the issue list says. The empty pointer is the whole
 * document ("/" would be the pointer to a key named ""), so it is shown as `(document)`.
 */
function describeIssues(body: ApiErrorBody): string[] {
  const lines = (body.issues ?? []).map((issue) => `${issue.path || '(document)'}: ${issue.message}`);
  if (body.total !== undefined && body.issues && body.total > body.issues.length) {
    lines.push(`… and ${body.total - body.issues.length} more (fix these and run the command again to see the rest)`);
  }
  for (const path of body.conflicts ?? []) lines.push(`conflict: ${path}`);
  return lines;
}
