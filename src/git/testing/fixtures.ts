/**
 * Test fixtures for the git layer: temporary repositories built with the real git CLI (the way a person or
 * an agent would), and a node:http server that hosts bare repositories through git-host/smart-http.ts.
 * Setup deliberately runs git on its own (execFileSync) rather than through run-git.ts, so tests do not
 * use the code under test to build their expectations.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { serveSmartHttp } from '../../git-host/smart-http.js';

const createdDirectories: string[] = [];

export function tempDir(): string {
  const directory = fs.mkdtempSync(`${os.tmpdir()}/svc-git-`);
  createdDirectories.push(directory);
  return directory;
}

export function removeTempDirs(): void {
  for (const directory of createdDirectories.splice(0)) fs.rmSync(directory, { recursive: true, force: true });
}

let clientHome: string | undefined;

/** The environment of "a user at a terminal": own empty HOME, fixed identity and dates, no prompts. */
function userEnvironment(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  clientHome ??= tempDir();
  return {
    PATH: process.env.PATH,
    HOME: clientHome,
    XDG_CONFIG_HOME: clientHome,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_AUTHOR_NAME: 'Ada Person',
    GIT_AUTHOR_EMAIL: 'ada@example.test',
    GIT_COMMITTER_NAME: 'Ada Person',
    GIT_COMMITTER_EMAIL: 'ada@example.test',
    LC_ALL: 'C',
    ...extra,
  };
}

export interface CliOptions {
  cwd?: string;
  env?: Record<string, string>;
  input?: string;
}

/** Run the git CLI as a user would; returns stdout without the trailing newline. */
export function git(args: string[], options: CliOptions = {}): string {
  return execFileSync('git', args, {
    cwd: options.cwd,
    env: userEnvironment(options.env),
    input: options.input,
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 256 * 1024 * 1024,
  })
    .toString('utf8')
    .replace(/\n$/, '');
}

/** Run git expecting failure; returns its exit status and stderr. */
export function gitFails(args: string[], options: CliOptions = {}): { status: number; stderr: string } {
  try {
    git(args, options);
  } catch (error) {
    const failure = error as { status: number | null; stderr: Buffer | string };
    return { status: failure.status ?? -1, stderr: failure.stderr.toString() };
  }
  throw new Error(`git ${args.join(' ')} unexpectedly succeeded`);
}

/**
 * The same, without blocking the event loop: required whenever git talks to a server running in the test
 * process (execFileSync would freeze the server that git is waiting for).
 */
export function gitAsync(args: string[], options: CliOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      'git',
      args,
      { cwd: options.cwd, env: userEnvironment(options.env), maxBuffer: 256 * 1024 * 1024, encoding: 'utf8' },
      (error, stdout, stderr) => {
        if (error) reject(Object.assign(error, { stderr }));
        else resolve(stdout.replace(/\n$/, ''));
      },
    );
    // git may exit before reading its (empty) input; that EPIPE is not a test failure.
    child.stdin?.on('error', () => undefined);
    child.stdin?.end(options.input ?? '');
  });
}

/** gitAsync expecting failure; resolves with git's stderr. */
export async function gitFailsAsync(args: string[], options: CliOptions = {}): Promise<string> {
  try {
    await gitAsync(args, options);
  } catch (error) {
    return String((error as { stderr?: unknown }).stderr ?? '');
  }
  throw new Error(`git ${args.join(' ')} unexpectedly succeeded`);
}

/** File contents to write (string or bytes), or null to delete the file. */
export type FileChanges = Record<string, string | Buffer | null>;

/** A working directory of a clone: commits, branches and history, with the real git CLI. */
export class WorkingCopy {
  constructor(readonly work: string) {}

  git(args: string[], options: Omit<CliOptions, 'cwd'> = {}): string {
    return git(args, { ...options, cwd: this.work });
  }

  /** Write, delete and commit files on the current branch; returns the new commit sha. */
  commit(files: FileChanges, message = 'change'): string {
    for (const [file, content] of Object.entries(files)) {
      const target = path.join(this.work, file);
      if (content === null) {
        fs.rmSync(target, { force: true });
      } else {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, content);
      }
    }
    this.git(['add', '--all']);
    this.git(['commit', '--quiet', '--allow-empty', '-m', message]);
    return this.head();
  }

  head(): string {
    return this.git(['rev-parse', 'HEAD']);
  }

  /** Switch to `branch`, creating it from `from` (default: the current commit) when it does not exist. */
  checkout(branch: string, from?: string): void {
    const exists = this.git(['branch', '--list', branch]) !== '';
    if (exists) this.git(['checkout', '--quiet', branch]);
    else this.git(['checkout', '--quiet', '-b', branch, ...(from ? [from] : [])]);
  }

  /** Start a branch with no history (for unrelated-histories cases). */
  orphan(branch: string): void {
    this.git(['checkout', '--quiet', '--orphan', branch]);
    this.git(['rm', '-rf', '--quiet', '--ignore-unmatch', '.']);
  }
}

/** A working clone with helpers to commit and push; `bare` is the repository under test. */
export class Workspace extends WorkingCopy {
  constructor(
    readonly bare: string,
    work: string,
  ) {
    super(work);
  }

  push(...branches: string[]): void {
    this.git(['push', '--quiet', 'origin', ...branches.map((branch) => `refs/heads/${branch}:refs/heads/${branch}`)]);
  }

  /** The tip of a branch in the bare repository. */
  tip(branch: string): string {
    return git(['--git-dir', this.bare, 'rev-parse', `refs/heads/${branch}`]);
  }
}

/**
 * A bare repository with a working clone. `main` gets a first commit with `initialFiles` and is pushed.
 * The bare repository is made with the plain CLI, so tests of initBare stay independent.
 */
export function createWorkspace(initialFiles: FileChanges = { 'README.md': 'hello\n' }): Workspace {
  const root = tempDir();
  const bare = path.join(root, 'repo.git');
  const work = path.join(root, 'work');
  git(['init', '--quiet', '--bare', '--initial-branch=main', bare]);
  git(['clone', '--quiet', bare, work]);
  const workspace = new Workspace(bare, work);
  workspace.git(['checkout', '--quiet', '-B', 'main']);
  workspace.commit(initialFiles, 'initial');
  workspace.push('main');
  return workspace;
}

export interface GitHttpServer {
  /** Base URL; a repository named `x` is at `${url}/x.git`. */
  url: string;
  /** Headers of every request received, in order. */
  requests: Array<{ method: string; url: string; headers: http.IncomingHttpHeaders }>;
  close(): Promise<void>;
}

/**
 * A plain node:http server hosting `repositories` (name → bare path) through serveSmartHttp. With `token`,
 * every request must carry HTTP Basic credentials whose password is the token (contract §2), else 401.
 */
export async function startGitHttpServer(options: {
  repositories: Record<string, string>;
  token?: string;
}): Promise<GitHttpServer> {
  const requests: GitHttpServer['requests'] = [];
  const server = http.createServer((request, response) => {
    requests.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers });
    const url = new URL(request.url ?? '/', 'http://localhost');
    const match = /^\/([^/]+)\.git(\/.*)$/.exec(url.pathname);
    const repoPath = match ? options.repositories[match[1] ?? ''] : undefined;
    if (!match || !repoPath) {
      response.writeHead(404).end();
      return;
    }
    if (options.token !== undefined) {
      const header = request.headers.authorization ?? '';
      const decoded = header.startsWith('Basic ') ? Buffer.from(header.slice(6), 'base64').toString('utf8') : '';
      if (decoded.slice(decoded.indexOf(':') + 1) !== options.token || !decoded.includes(':')) {
        response.writeHead(401, { 'WWW-Authenticate': 'Basic realm="svc"' }).end();
        return;
      }
    }
    serveSmartHttp(repoPath, request, response, {
      subPath: match[2] ?? '',
      serviceParameter: url.searchParams.get('service'),
    }).catch(() => {
      if (!response.headersSent) response.writeHead(500);
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
