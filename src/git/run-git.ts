/**
 * The one door to git. Every git process svc starts is spawned here: an argument array (never a shell),
 * a deadline, a bounded output buffer and a fixed environment that ignores the machine's and the user's
 * git configuration, credential helpers and terminal.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { GitError, GitOutputTooLargeError, GitTimeoutError, type GitErrorDetails } from './errors.js';

export const DEFAULT_TIMEOUT_MS = 30_000;
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024 * 1024;
/** Stderr is for diagnostics; a chatty process must not grow it without bound. */
const MAX_STDERR_BYTES = 64 * 1024;
/** Time between SIGTERM (lets git delete its .lock files) and SIGKILL. */
const KILL_GRACE_MS = 2_000;

export interface GitSpawnOptions {
  /** The repository (a bare repository path, or a `.git` directory); passed as `--git-dir`. */
  gitDir?: string;
  /** Working directory of the process (for commands that take paths, like `clone`). */
  cwd?: string;
  /** Extra environment, applied over the fixed one (e.g. GIT_AUTHOR_NAME, GIT_PROTOCOL). */
  env?: Readonly<Record<string, string>>;
  /**
   * Configuration handed to git through GIT_CONFIG_COUNT/KEY_n/VALUE_n: never on the command line
   * (visible to every user in `ps`) and never in a config file. The place for credentials.
   */
  config?: Readonly<Record<string, string>>;
  /** Kill the process (and its children) after this long. Default 30 s. */
  timeoutMs?: number;
}

export interface RunGitOptions extends GitSpawnOptions {
  /** Data for git's stdin. Without it stdin is /dev/null, so git can never wait for input. */
  stdin?: string | Buffer | Readable;
  /** Kill git and fail once stdout exceeds this many bytes. Default 64 MiB. */
  maxOutputBytes?: number;
  /** Exit codes that are answers rather than failures (e.g. 1 from `merge-base --is-ancestor`). 0 always is. */
  okExitCodes?: readonly number[];
}

export interface GitResult {
  stdout: Buffer;
  stderr: string;
  exitCode: number;
}

let privateHome: string | undefined;

/**
 * An empty directory used as HOME and XDG_CONFIG_HOME for every git process, so nothing from the
 * account svc runs as (~/.gitconfig, ~/.config/git/*, ~/.git-credentials) can change what git does.
 */
function privateHomeDirectory(): string {
  if (privateHome === undefined) {
    const created = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-git-home-'));
    process.once('exit', () => fs.rmSync(created, { recursive: true, force: true }));
    privateHome = created;
  }
  return privateHome;
}

/** Variables that git or ssh legitimately need from the machine. Everything else (GIT_DIR, GIT_ASKPASS, …) is dropped. */
const INHERITED_VARIABLES = [
  'PATH',
  'TMPDIR',
  'SSH_AUTH_SOCK',
  'http_proxy',
  'https_proxy',
  'no_proxy',
  'all_proxy',
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'NO_PROXY',
  'ALL_PROXY',
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'GIT_SSL_CAINFO',
] as const;

export function gitEnvironment(options: Pick<GitSpawnOptions, 'env' | 'config'> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of INHERITED_VARIABLES) {
    const value = process.env[name];
    if (value !== undefined) env[name] = value;
  }
  const home = privateHomeDirectory();
  Object.assign(env, {
    LC_ALL: 'C',
    HOME: home,
    XDG_CONFIG_HOME: home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    // Replace refs would let the object graph say something other than what the commits say.
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_SSH_COMMAND: 'ssh -o BatchMode=yes',
  });
  if (options.env) Object.assign(env, options.env);
  const configEntries = Object.entries(options.config ?? {});
  if (configEntries.length > 0) {
    env.GIT_CONFIG_COUNT = String(configEntries.length);
    configEntries.forEach(([key, value], index) => {
      env[`GIT_CONFIG_KEY_${index}`] = key;
      env[`GIT_CONFIG_VALUE_${index}`] = value;
    });
  }
  return env;
}

/** Literal options that precede every subcommand. */
function fullArguments(args: readonly string[], gitDir: string | undefined): string[] {
  // An empty credential.helper clears any helper list a repository config might carry.
  const prefix = ['-c', 'credential.helper='];
  if (gitDir !== undefined) prefix.push(`--git-dir=${gitDir}`);
  return [...prefix, ...args];
}

/** A running git process whose stdout the caller consumes as a stream (smart HTTP). */
export interface GitProcess {
  readonly child: ChildProcess;
  /** git's stdin; null when started with stdinMode 'ignore' (stdin is /dev/null). */
  readonly stdin: Writable | null;
  readonly stdout: Readable;
  /** Resolves with the exit code when git exits 0 (or an accepted code); rejects with a typed GitError otherwise. */
  readonly finished: Promise<{ exitCode: number; stderr: string }>;
  /** Stop git and its children now (e.g. the HTTP client went away). */
  kill(): void;
}

/**
 * Spawn git with piped stdio. Used directly for streaming; `runGit` builds on it for buffered calls.
 * git runs in its own process group so a timeout also stops the helpers it started (pack-objects, ssh).
 */
export function startGit(
  args: readonly string[],
  options: GitSpawnOptions & { okExitCodes?: readonly number[]; stdinMode?: 'pipe' | 'ignore' } = {},
): GitProcess {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const child = spawn('git', fullArguments(args, options.gitDir), {
    cwd: options.cwd,
    env: gitEnvironment(options),
    stdio: [options.stdinMode ?? 'pipe', 'pipe', 'pipe'],
    detached: true,
    windowsHide: true,
  });

  // Kept as bytes and decoded once, so a multi-byte character split across chunks stays intact.
  const stderrChunks: Buffer[] = [];
  let stderrBytes = 0;
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderrBytes >= MAX_STDERR_BYTES) return;
    stderrBytes += chunk.length;
    stderrChunks.push(chunk);
  });
  const stderrText = (): string => Buffer.concat(stderrChunks).toString('utf8');
  // git may exit without reading all of its input (e.g. upload-pack after an error); that EPIPE is not ours to report.
  child.stdin?.on('error', () => undefined);

  let timedOut = false;
  let graceTimer: NodeJS.Timeout | undefined;
  const killGroup = (signal: NodeJS.Signals): void => {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
    try {
      process.kill(-child.pid, signal);
    } catch {
      child.kill(signal);
    }
  };
  const terminate = (): void => {
    killGroup('SIGTERM');
    graceTimer ??= setTimeout(() => killGroup('SIGKILL'), KILL_GRACE_MS);
    graceTimer.unref();
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    terminate();
  }, timeoutMs);

  const finished = new Promise<{ exitCode: number; stderr: string }>((resolve, reject) => {
    child.once('error', (error) => {
      clearTimeout(deadline);
      reject(new GitError(`could not start git: ${error.message}`, { args, exitCode: null, signal: null, stderr: stderrText() }));
    });
    child.once('close', (exitCode, signal) => {
      clearTimeout(deadline);
      if (graceTimer) clearTimeout(graceTimer);
      const stderr = stderrText();
      const details: GitErrorDetails = { args, exitCode, signal, stderr };
      if (timedOut) return reject(new GitTimeoutError(timeoutMs, details));
      if (exitCode === 0 || (exitCode !== null && options.okExitCodes?.includes(exitCode))) {
        return resolve({ exitCode, stderr });
      }
      reject(GitError.fromExit(details));
    });
  });
  // Callers that only stream may never await `finished`; an unobserved rejection must not crash the process.
  finished.catch(() => undefined);

  return {
    child,
    stdin: child.stdin,
    // stdout is always 'pipe' above, so Node always creates the stream.
    stdout: child.stdout as Readable,
    finished,
    kill: terminate,
  };
}

/** Run git to completion and buffer its stdout. Throws a typed GitError for any exit code not accepted. */
export async function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<GitResult> {
  const { stdin } = options;
  const maxOutputBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES;
  const git = startGit(args, { ...options, stdinMode: stdin === undefined ? 'ignore' : 'pipe' });

  const chunks: Buffer[] = [];
  let outputBytes = 0;
  let overflowed = false;
  git.stdout.on('data', (chunk: Buffer) => {
    if (overflowed) return;
    outputBytes += chunk.length;
    if (outputBytes > maxOutputBytes) {
      overflowed = true;
      chunks.length = 0;
      git.kill();
      return;
    }
    chunks.push(chunk);
  });

  const gitStdin = git.stdin;
  if (gitStdin && stdin !== undefined) {
    if (typeof stdin === 'string' || Buffer.isBuffer(stdin)) {
      gitStdin.end(stdin);
    } else {
      stdin.once('error', () => git.kill());
      stdin.pipe(gitStdin);
    }
  }

  let outcome: { exitCode: number; stderr: string };
  try {
    outcome = await git.finished;
  } catch (error) {
    if (overflowed && error instanceof GitError && !(error instanceof GitTimeoutError)) {
      throw new GitOutputTooLargeError(maxOutputBytes, error);
    }
    throw error;
  }
  // git can finish writing and exit 0 before the kill lands; the output is still incomplete for the caller.
  if (overflowed) {
    throw new GitOutputTooLargeError(maxOutputBytes, { args, exitCode: outcome.exitCode, signal: null, stderr: outcome.stderr });
  }
  return { stdout: Buffer.concat(chunks), stderr: outcome.stderr, exitCode: outcome.exitCode };
}

/** stdout as text with the trailing newline removed: the shape of every one-line answer (a sha, a count). */
export function firstLine(result: GitResult): string {
  const text = result.stdout.toString('utf8');
  const end = text.indexOf('\n');
  return end === -1 ? text : text.slice(0, end);
}
