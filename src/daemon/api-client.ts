/**
 * The daemon's calls to the svc API's sandbox-identity routes, with the sandbox token as bearer.
 */
import { requestJson } from './http-json.js';
import type { DaemonSettings } from './settings.js';

export interface CloneCredential {
  username: string;
  password: string;
  url?: string;
  expires_at?: string;
}

export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export class ApiClient {
  constructor(private readonly settings: Pick<DaemonSettings, 'apiUrl' | 'sandboxToken' | 'projectId'>) {}

  private async call(method: string, route: string, body?: unknown): Promise<any> {
    if (!this.settings.apiUrl) throw new ApiError('SVC_API_URL is not set, so the daemon cannot reach the svc API.', 0);
    const response = await requestJson(this.settings.apiUrl + route, { method, headers: { authorization: `Bearer ${this.settings.sandboxToken}` }, body });
    if (response.status < 200 || response.status >= 300) throw new ApiError(`${method} ${route} answered ${response.status}: ${response.text.slice(0, 500)}`, response.status);
    return response.body ?? {};
  }

  cloneCredential(): Promise<CloneCredential> {
    return this.call('GET', `/projects/${encodeURIComponent(this.settings.projectId)}/git/clone-credential`);
  }

  lease(busy: boolean): Promise<{ lease_expires_at?: string | null }> {
    return this.call('POST', '/sandbox/lease', { busy });
  }

  reportRuntimeSession(runtimeSessionId: string): Promise<unknown> {
    return this.call('PUT', '/sandbox/runtime-session', { runtime_session_id: runtimeSessionId });
  }
}
