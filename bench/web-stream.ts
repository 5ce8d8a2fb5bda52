/**
 * Issue 23: "a streamed event appears in the page ≤ 100 ms after the runtime emits it". A session runs on the
 * process provider with the real runtime and the scripted model; Chromium has its page open. The model streams
 * a text of numbered markers, one piece every PIECE_DELAY_MS, noting when it writes each; the runtime emits each
 * as it reads it (read here straight from the runtime's own /event stream: the emission time), and the page notes
 * (a MutationObserver on the conversation) when each marker is first in its DOM. The floor, in the same run: when
 * each marker arrives on the API's events stream read here (runtime → daemon → API, no browser).
 * Both clocks are the wall clock (performance.timeOrigin + performance.now()), on one machine.
 */
import fs from 'node:fs';
import path from 'node:path';
import { chromium } from 'playwright-core';
import { scriptedRuntimeConfig } from '../test/support/runtime-fixture.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { benchApi, benchProject, round, startBenchServer } from './support.js';

const MARKERS = 80;
const PIECE_DELAY_MS = 25;
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** `<m001>  `: eight characters, so each of the model's eight-character pieces carries exactly one marker. */
const marker = (index: number) => `<m${String(index).padStart(3, '0')}>`;

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

async function waitFor<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 180_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** When each marker first arrives on an events stream, until `signal` aborts it. */
async function followStream(url: string, headers: Record<string, string>, seen: Map<string, number>, signal: AbortSignal): Promise<void> {
  const answer = await fetch(url, { headers: { ...headers, accept: 'text/event-stream' }, signal });
  const decoder = new TextDecoder();
  let text = '';
  try {
    for await (const chunk of answer.body as unknown as AsyncIterable<Uint8Array>) {
      const at = performance.timeOrigin + performance.now();
      text += decoder.decode(chunk, { stream: true });
      for (const found of text.matchAll(/<m\d{3}>/g)) if (!seen.has(found[0])) seen.set(found[0], at);
      text = text.slice(Math.max(0, text.length - 16));
    }
  } catch {
    // Aborted once the page has every marker.
  }
}

export async function streamedEventBench(): Promise<Record<string, unknown>> {
  const sent = new Map<string, number>();
  const model = await startScriptedModel([], { onTextPiece: (piece, at) => sent.set(piece.trim(), at) });
  const server = await startBenchServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
  const stream = new AbortController();
  try {
    const projectId = await benchProject(server, { 'README.md': 'bench\n', '.svc/runtime/opencode.json': JSON.stringify(scriptedRuntimeConfig(model.baseUrl)) });
    const { project } = await benchApi(server, 'GET', `/v1/projects/${projectId}`);
    const base = `/v1/projects/${projectId}/sessions`;
    const { session } = await benchApi(server, 'POST', base, {});
    await waitFor('the runtime to be ready', async () => (await benchApi(server, 'GET', `${base}/${session.id}`)).session, (s) => s.status === 'running' && s.runtime_session_id !== null);

    const context = await browser.newContext({ viewport: { width: 1200, height: 800 }, extraHTTPHeaders: { authorization: `Bearer ${server.token}` } });
    const page = await context.newPage();
    await page.goto(`${server.url}/projects/${project.slug}/sessions/${session.id}`);
    // A first turn shows the page's stream is open and following the runtime before anything is timed.
    model.push({ text: 'Ready.' });
    await benchApi(server, 'POST', `${base}/${session.id}/messages`, { text: 'Say ready.' });
    await page.locator('.turn-agent:has-text("Ready.")').waitFor({ timeout: 180_000 });
    await page.evaluate(() => {
      const box = document.getElementById('conversation');
      const seen: Record<string, number> = {};
      (window as unknown as { seen: Record<string, number> }).seen = seen;
      if (!box) return;
      new MutationObserver(() => {
        const at = performance.timeOrigin + performance.now();
        for (const found of (box.textContent ?? '').matchAll(/<m\d{3}>/g)) if (!(found[0] in seen)) seen[found[0]] = at;
      }).observe(box, { childList: true, subtree: true, characterData: true });
    });
    const onApi = new Map<string, number>();
    const onRuntime = new Map<string, number>();
    const { runtimePort } = JSON.parse(fs.readFileSync(path.join(server.dataDir, 'sandboxes', session.id, 'sandbox.json'), 'utf8')) as { runtimePort: number };
    const following = Promise.all([
      followStream(`${server.url}${base}/${session.id}/events`, { authorization: `Bearer ${server.token}` }, onApi, stream.signal),
      followStream(`http://127.0.0.1:${runtimePort}/event`, {}, onRuntime, stream.signal),
    ]);

    const text = Array.from({ length: MARKERS }, (_, index) => `${marker(index)}  `).join('');
    model.push({ text, pieceDelayMs: PIECE_DELAY_MS });
    await benchApi(server, 'POST', `${base}/${session.id}/messages`, { text: 'Stream the markers.' });
    await page.waitForFunction((count) => Object.keys((window as unknown as { seen: Record<string, number> }).seen).length >= count, MARKERS, { timeout: 180_000, polling: 100 });
    const shown = await page.evaluate(() => (window as unknown as { seen: Record<string, number> }).seen);
    stream.abort();
    await following;
    await context.close();

    // From the runtime's emission (the marker on its own /event stream) to the page's DOM, and to the API's stream.
    const pageDelays: number[] = [];
    const apiDelays: number[] = [];
    const modelToPage: number[] = [];
    for (let index = 0; index < MARKERS; index += 1) {
      const emitted = onRuntime.get(marker(index));
      const inPage = shown[marker(index)];
      const onStream = onApi.get(marker(index));
      const written = sent.get(marker(index));
      if (emitted !== undefined && inPage !== undefined) pageDelays.push(inPage - emitted);
      if (emitted !== undefined && onStream !== undefined) apiDelays.push(onStream - emitted);
      if (written !== undefined && inPage !== undefined) modelToPage.push(inPage - written);
    }
    return {
      markers: MARKERS,
      measured: pageDelays.length,
      piece_every_ms: PIECE_DELAY_MS,
      runtime_to_page_p50_ms: round(percentile(pageDelays, 50)),
      runtime_to_page_p99_ms: round(percentile(pageDelays, 99)),
      floor_runtime_to_api_stream_p50_ms: round(percentile(apiDelays, 50)),
      floor_runtime_to_api_stream_p99_ms: round(percentile(apiDelays, 99)),
      model_to_page_p50_ms: round(percentile(modelToPage, 50)),
      model_to_page_p99_ms: round(percentile(modelToPage, 99)),
      target_ms: 100,
    };
  } finally {
    stream.abort();
    await browser.close();
    await server.stop();
    await model.close();
  }
}
