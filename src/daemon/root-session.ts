/**
 * The runtime's root session: created or reopened at every cold boot of the runtime (its id is kept in
 * the runtime's HOME, which survives stop and resume), reported to the API, and given SVC_INITIAL_PROMPT
 * exactly once per svc session.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ApiClient } from './api-client.js';
import type { RuntimeClient } from './runtime-client.js';
import type { DaemonSettings } from './settings.js';

const ROOT_FILE = 'svc-root-session.json';
const PROMPT_MARKER = 'svc-initial-prompt-sent';

export class RootSession {
  id: string | null = null;
  reported = false;
  initialPromptSent = false;
  error: string | null = null;
  private running: Promise<void> | undefined;

  constructor(
    private readonly settings: DaemonSettings,
    private readonly runtime: RuntimeClient,
    private readonly api: ApiClient,
    private readonly log: (message: string) => void,
    private readonly onPromptSent: (runtimeSessionId: string) => void,
  ) {
    this.initialPromptSent = fs.existsSync(path.join(settings.runtimeHome, PROMPT_MARKER));
  }

  private remembered(): string | null {
    try {
      const saved = JSON.parse(fs.readFileSync(path.join(this.settings.runtimeHome, ROOT_FILE), 'utf8'));
      return typeof saved.runtime_session_id === 'string' ? saved.runtime_session_id : null;
    } catch {
      return null;
    }
  }

  private remember(id: string): void {
    const file = path.join(this.settings.runtimeHome, ROOT_FILE);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify({ runtime_session_id: id }) + '\n');
    fs.renameSync(`${file}.tmp`, file);
  }

  /** Runs the boot steps; a second call while one runs waits for it. */
  boot(isCurrent: () => boolean): Promise<void> {
    this.running ??= this.bootOnce(isCurrent).finally(() => (this.running = undefined));
    return this.running;
  }

  private async bootOnce(isCurrent: () => boolean): Promise<void> {
    this.reported = false;
    for (let attempt = 0; isCurrent(); attempt += 1) {
      try {
        const saved = this.remembered();
        let id = saved && (await this.runtime.sessionExists(saved)) ? saved : null;
        if (!id) {
          id = await this.runtime.createSession(`svc session ${this.settings.sessionId}`);
          this.remember(id);
          this.log(`created root runtime session ${id}`);
        }
        this.id = id;
        await this.sendInitialPrompt(id);
        await this.report(id, isCurrent);
        this.error = null;
        return;
      } catch (error) {
        this.error = (error as Error).message;
        this.log(`root session: ${this.error}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 5000)));
      }
    }
  }

  private async sendInitialPrompt(id: string): Promise<void> {
    const marker = path.join(this.settings.runtimeHome, PROMPT_MARKER);
    if (!this.settings.initialPrompt || fs.existsSync(marker)) return;
    // The conversation is the truth: if a crash came between sending and marking, the prompt is already there.
    if ((await this.runtime.messageCount(id)) === 0) {
      await this.runtime.promptAsync(id, this.settings.initialPrompt, this.settings.agentModel || undefined);
      this.onPromptSent(id);
      this.log('sent the initial prompt');
    }
    fs.writeFileSync(marker, `${id}\n`);
    this.initialPromptSent = true;
  }

  /** Reports the root session to the API, retrying while the API is unreachable. */
  private async report(id: string, isCurrent: () => boolean): Promise<void> {
    for (let attempt = 0; isCurrent() && this.id === id; attempt += 1) {
      try {
        await this.api.reportRuntimeSession(id);
        this.reported = true;
        return;
      } catch (error) {
        this.error = `Reporting the root runtime session failed: ${(error as Error).message}`;
        await new Promise((resolve) => setTimeout(resolve, Math.min(250 * 2 ** attempt, 5000)));
      }
    }
  }
}
