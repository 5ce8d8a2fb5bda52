/**
 * The few calls the daemon makes to the agent runtime's own HTTP API (opencode server).
 */
import { requestJson } from './http-json.js';

/** Each readiness probe's deadline, and how often one goes out while the runtime starts. */
const PROBE_DEADLINE_MS = 2000;
const PROBE_INTERVAL_MS = 100;

export class RuntimeClient {
  constructor(private readonly port: number) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async call(method: string, route: string, body?: unknown, timeoutMs = 10_000): Promise<{ status: number; body: any }> {
    const response = await requestJson(this.baseUrl + route, { method, body, timeoutMs });
    return { status: response.status, body: response.body };
  }

  /**
   * True once the runtime answers an instance route. Requests that reach it in its first seconds can
   * stay unanswered forever, so each probe has its own short deadline.
   */
  async probe(): Promise<boolean> {
    try {
      return (await this.call('GET', '/session/status', undefined, PROBE_DEADLINE_MS)).status === 200;
    } catch {
      return false;
    }
  }

  /**
   * Resolves true once the runtime answers, or false once `wanted` says to stop. A probe goes out every
   * PROBE_INTERVAL_MS without waiting for the ones before it: the first requests to reach the runtime while it
   * starts hang until their deadline, and waiting for one held every boot up by that deadline (about 1.6 s of
   * 4.3 here), where the runtime answers a request sent a moment later at once.
   */
  async waitAnswering(wanted: () => boolean): Promise<boolean> {
    let answered = false;
    let wake = () => {};
    const woken = new Promise<void>((resolve) => (wake = resolve));
    while (wanted()) {
      void this.probe().then((up) => {
        if (!up) return;
        answered = true;
        wake();
      });
      await Promise.race([woken, new Promise((resolve) => setTimeout(resolve, PROBE_INTERVAL_MS))]);
      if (answered) return true;
    }
    return false;
  }

  async sessionExists(id: string): Promise<boolean> {
    const result = await this.call('GET', `/session/${encodeURIComponent(id)}`);
    return result.status === 200 && result.body?.id === id;
  }

  async createSession(title: string): Promise<string> {
    const result = await this.call('POST', '/session', { title });
    if (result.status !== 200 || typeof result.body?.id !== 'string') throw new Error(`The runtime did not create a session (HTTP ${result.status}).`);
    return result.body.id;
  }

  async messageCount(id: string): Promise<number> {
    const result = await this.call('GET', `/session/${encodeURIComponent(id)}/message`);
    return Array.isArray(result.body) ? result.body.length : 0;
  }

  async lastMessage(id: string): Promise<any> {
    const result = await this.call('GET', `/session/${encodeURIComponent(id)}/message`);
    return Array.isArray(result.body) ? result.body[result.body.length - 1] : undefined;
  }

  async promptAsync(id: string, text: string, model?: string): Promise<void> {
    const body: Record<string, unknown> = { parts: [{ type: 'text', text }] };
    const slash = model ? model.indexOf('/') : -1;
    if (model && slash > 0) body.model = { providerID: model.slice(0, slash), modelID: model.slice(slash + 1) };
    const result = await this.call('POST', `/session/${encodeURIComponent(id)}/prompt_async`, body);
    if (result.status >= 300) throw new Error(`The runtime refused the prompt (HTTP ${result.status}).`);
  }

  /** Session id → status type, as the runtime reports it. */
  async statuses(): Promise<Record<string, string>> {
    const result = await this.call('GET', '/session/status');
    const out: Record<string, string> = {};
    if (result.body && typeof result.body === 'object') for (const [id, status] of Object.entries(result.body as Record<string, any>)) out[id] = String(status?.type ?? '');
    return out;
  }

  async abort(id: string): Promise<boolean> {
    const result = await this.call('POST', `/session/${encodeURIComponent(id)}/abort`);
    return result.status === 200;
  }
}
