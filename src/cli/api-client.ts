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
  ) {
    super(`${body.error ?? `the server answered ${status}`}${body.code ? ` (${body.code})` : ''}`, 1, details);
    this.name = 'ApiError';
  }
}

export interface RequestOptions {
  body?: unknown;
  /** Sent verbatim as the JSON body (e.g. a dashboard file), so large documents are not re-serialised. */
  rawJson?: string;
  headers?: Record<string, string>;
  accept?: string;
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
      throw new ApiError(response.status, errorBody, describeIssues(errorBody));
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
    throw new ApiError(response.status, body, describeIssues(body));
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
    lines.push(`… and ${body.total - body.issues.length} more (fix these and publish again to see the rest)`);
  }
  for (const path of body.conflicts ?? []) lines.push(`conflict: ${path}`);
  return lines;
}
