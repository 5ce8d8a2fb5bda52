/**
 * Test fixtures around the real agent runtime (opencode, pinned in package.json): the repository config
 * that points it at a scripted model, the path of its binary, and a reader for its event stream.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const opencodeBinary = path.join(repoRoot, 'node_modules', '.bin', 'opencode');

/** The runtime config a project commits under `.svc/runtime/opencode.json` to use an OpenAI-compatible endpoint. */
export function scriptedRuntimeConfig(baseUrl: string, modelId = 'scripted-model'): Record<string, unknown> {
  return {
    $schema: 'https://opencode.ai/config.json',
    model: `scripted/${modelId}`,
    small_model: `scripted/${modelId}`,
    provider: {
      scripted: {
        npm: '@ai-sdk/openai-compatible',
        name: 'Scripted model',
        options: { baseURL: baseUrl, apiKey: 'scripted' },
        models: { [modelId]: { name: 'Scripted model', tool_call: true, limit: { context: 100000, output: 4096 } } },
      },
    },
  };
}

export function writeRuntimeConfig(configDir: string, baseUrl: string): void {
  fs.mkdirSync(configDir, { recursive: true });
  fs.writeFileSync(path.join(configDir, 'opencode.json'), JSON.stringify(scriptedRuntimeConfig(baseUrl), null, 2) + '\n');
}

export interface RuntimeEvent {
  type: string;
  properties?: any;
}

/** Follows an SSE stream, collecting parsed `data:` JSON; `until` resolves when an event matches. */
export function followEvents(url: string, headers: Record<string, string> = {}) {
  const events: RuntimeEvent[] = [];
  const controller = new AbortController();
  const waiters: Array<{ match: (event: RuntimeEvent) => boolean; resolve: (event: RuntimeEvent) => void }> = [];
  let response: Response | undefined;
  const opened = fetch(url, { headers, signal: controller.signal }).then(async (res) => {
    response = res;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += decoder.decode(value, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const data = block.split('\n').filter((line) => line.startsWith('data:')).map((line) => line.slice(5).trimStart()).join('\n');
        if (!data) continue;
        let event: RuntimeEvent;
        try {
          event = JSON.parse(data);
        } catch {
          continue;
        }
        events.push(event);
        for (const waiter of [...waiters]) if (waiter.match(event)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(event);
        }
      }
    }
  }).catch(() => {});
  return {
    events,
    response: () => response,
    opened,
    until(match: (event: RuntimeEvent) => boolean): Promise<RuntimeEvent> {
      const found = events.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve) => waiters.push({ match, resolve }));
    },
    close: () => controller.abort(),
  };
}
