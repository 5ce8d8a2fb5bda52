/**
 * The session's working copy: cloned on first boot with the just-in-time credential helper, checked out on
 * the session branch (tracking origin), committing as the agent of this session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runChecked, runProcess } from '../shared/run-process.js';
import type { DaemonSettings } from './settings.js';

export interface WorkspaceInfo {
  branch: string | null;
  commit: string | null;
}

/** A fixed environment: nothing from the machine's git configuration or a terminal prompt. */
function gitEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' };
}

export class Workspace {
  constructor(private readonly settings: DaemonSettings, private readonly credentialHelper: string) {}

  git(args: readonly string[], timeoutMs = 120_000) {
    return runChecked('git', args, { cwd: this.settings.workspace, env: gitEnv(), timeoutMs });
  }

  hasRepository(): boolean {
    return fs.existsSync(path.join(this.settings.workspace, '.git'));
  }

  /** Clones when asked to and not done yet; then makes sure the session branch is checked out. */
  async prepare(): Promise<void> {
    const s = this.settings;
    fs.mkdirSync(s.workspace, { recursive: true });
    if (!this.hasRepository()) {
      if (!s.autoClone) return;
      if (!s.repoUrl) throw new Error('SVC_PROJECT_AUTO_CLONE is 1 but SVC_REPO_URL is empty, so there is nothing to clone.');
      // Into a fresh directory, then moved in: a half-finished clone never looks like a repository. It is
      // inside the workspace because a container's workspace is a mount of its own (a rename cannot leave it).
      for (const entry of fs.readdirSync(s.workspace)) if (entry.startsWith('.svc-clone-')) fs.rmSync(path.join(s.workspace, entry), { recursive: true, force: true });
      const staging = fs.mkdtempSync(path.join(s.workspace, '.svc-clone-'));
      try {
        await runChecked('git', ['-c', `credential.helper=`, '-c', `credential.helper=${this.credentialHelper}`, 'clone', '--no-checkout', '--', s.repoUrl, staging], { env: gitEnv(), timeoutMs: 600_000 });
        for (const entry of fs.readdirSync(staging)) fs.renameSync(path.join(staging, entry), path.join(s.workspace, entry));
      } finally {
        fs.rmSync(staging, { recursive: true, force: true });
      }
      // The helper (a command, not a secret) stays configured so the agent's own `git push` works.
      await this.git(['config', '--local', '--replace-all', 'credential.helper', '']);
      await this.git(['config', '--local', '--add', 'credential.helper', this.credentialHelper]);
      await this.checkoutSessionBranch();
    } else {
      await this.followRepoUrl();
    }
    await this.git(['config', '--local', 'user.name', `${s.agentName} (svc session ${s.sessionId})`]);
    await this.git(['config', '--local', 'user.email', `session-${s.sessionId}@noreply.svc.invalid`]);
  }

  /**
   * Where svc's git host is, as the sandbox sees it, can change between boots: a bubblewrap sandbox gets a new
   * link address at each resume, and svc may come back on another port or URL. A clone made at an earlier boot
   * keeps its origin on the project's repository at the address of now; an origin the agent pointed at another
   * repository stays.
   */
  private async followRepoUrl(): Promise<void> {
    const repoUrl = this.settings.repoUrl;
    if (!repoUrl) return;
    const current = await runProcess('git', ['remote', 'get-url', 'origin'], { cwd: this.settings.workspace, env: gitEnv() });
    const origin = current.stdout.trim();
    const repository = repositoryPath(repoUrl);
    if (current.code !== 0 || origin === repoUrl || repository === null || repositoryPath(origin) !== repository) return;
    await this.git(['remote', 'set-url', 'origin', repoUrl]);
  }

  private async checkoutSessionBranch(): Promise<void> {
    const s = this.settings;
    const branch = s.branchName;
    if (!branch) {
      await this.git(['checkout', '--quiet']);
      return;
    }
    const remote = await runProcess('git', ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`], { cwd: s.workspace, env: gitEnv() });
    if (remote.code === 0) {
      await this.git(['checkout', '--quiet', '-B', branch, '--track', `origin/${branch}`]);
      return;
    }
    // The control plane cuts the branch before the sandbox starts; if it is missing, start it from the base.
    await this.git(['checkout', '--quiet', '-B', branch, `origin/${s.baseRef}`]);
    await this.git(['config', '--local', `branch.${branch}.remote`, 'origin']);
    await this.git(['config', '--local', `branch.${branch}.merge`, `refs/heads/${branch}`]);
  }

  /** `POST /svc/refresh`: fast-forward the session branch from origin. */
  async pull(): Promise<void> {
    const branch = this.settings.branchName;
    await this.git(['fetch', '--quiet', 'origin']);
    const remote = await runProcess('git', ['rev-parse', '--verify', '--quiet', `refs/remotes/origin/${branch}`], { cwd: this.settings.workspace, env: gitEnv() });
    if (remote.code !== 0) return;
    await this.git(['merge', '--ff-only', '--quiet', `origin/${branch}`]);
  }

  async info(): Promise<WorkspaceInfo> {
    if (!this.hasRepository()) return { branch: null, commit: null };
    const env = gitEnv();
    const [branch, commit] = await Promise.all([
      runProcess('git', ['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: this.settings.workspace, env, timeoutMs: 5000 }),
      runProcess('git', ['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: this.settings.workspace, env, timeoutMs: 5000 }),
    ]);
    return { branch: branch.code === 0 ? branch.stdout.trim() : null, commit: commit.code === 0 ? commit.stdout.trim() : null };
  }

  /** The runtime's config directory: the manifest's `runtime.config_dir`, else `.svc/runtime`. */
  configDirectory(): string {
    const fallback = path.join(this.settings.workspace, '.svc', 'runtime');
    const relative = readManifestConfigDir(this.settings.workspace);
    if (!relative) return fallback;
    const resolved = path.resolve(this.settings.workspace, relative);
    // Only inside the repository: a manifest must not point the runtime at the daemon's own files.
    return resolved.startsWith(this.settings.workspace + path.sep) ? resolved : fallback;
  }
}

/**
 * Reads `runtime.config_dir` (svc.yaml) or `[runtime] config_dir` (svc.toml) with a line scanner: the
 * daemon carries no YAML or TOML parser, and this one key is all it needs.
 */
export function readManifestConfigDir(workspace: string): string | undefined {
  const unquote = (value: string) => value.trim().replace(/\s+#.*$/, '').replace(/^["']|["']$/g, '');
  try {
    const yaml = fs.readFileSync(path.join(workspace, 'svc.yaml'), 'utf8').split('\n');
    let inRuntime = false;
    for (const line of yaml) {
      if (/^runtime:\s*(#.*)?$/.test(line)) {
        inRuntime = true;
        continue;
      }
      if (/^\S/.test(line)) inRuntime = false;
      const match = inRuntime ? /^\s+config_dir:\s*(.+)$/.exec(line) : null;
      if (match) return unquote(match[1]!) || undefined;
    }
    return undefined;
  } catch {}
  try {
    const toml = fs.readFileSync(path.join(workspace, 'svc.toml'), 'utf8').split('\n');
    let inRuntime = false;
    for (const line of toml) {
      const table = /^\s*\[([^\]]+)\]/.exec(line);
      if (table) {
        inRuntime = table[1]!.trim() === 'runtime';
        continue;
      }
      const match = inRuntime ? /^\s*config_dir\s*=\s*(.+)$/.exec(line) : null;
      if (match) return unquote(match[1]!) || undefined;
    }
  } catch {}
  return undefined;
}

/** The path of a repository's http(s) URL (`/git/<project>.git`), or null for anything else. */
function repositoryPath(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.pathname : null;
  } catch {
    return null;
  }
}
