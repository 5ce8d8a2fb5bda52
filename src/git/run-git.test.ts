import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { afterAll, describe, expect, it } from 'vitest';
import { GitError, GitOutputTooLargeError, GitTimeoutError } from './errors.js';
import { gitEnvironment, runGit, startGit } from './run-git.js';
import { createWorkspace, removeTempDirs, tempDir } from './testing/fixtures.js';

afterAll(removeTempDirs);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('runGit', () => {
  it('returns stdout as a buffer and accepts listed exit codes', async () => {
    const { bare } = createWorkspace();
    const ok = await runGit(['rev-parse', '--verify', '--quiet', 'refs/heads/main'], { gitDir: bare });
    expect(ok.stdout.toString()).toMatch(/^[0-9a-f]{40}\n$/);
    const missing = await runGit(['rev-parse', '--verify', '--quiet', 'refs/heads/nope'], { gitDir: bare, okExitCodes: [1] });
    expect(missing.exitCode).toBe(1);
  });

  it('throws GitError with exit code, stderr and args', async () => {
    const { bare } = createWorkspace();
    const failure = await runGit(['cat-file', '-p', 'deadbeef'], { gitDir: bare }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitError);
    const gitError = failure as GitError;
    expect(gitError.exitCode).toBe(128);
    expect(gitError.args).toEqual(['cat-file', '-p', 'deadbeef']);
    expect(gitError.stderr).toContain('deadbeef');
  });

  it('feeds stdin from a string and from a stream', async () => {
    const { bare } = createWorkspace();
    const fromString = await runGit(['hash-object', '--stdin'], { gitDir: bare, stdin: 'hello\n' });
    const fromStream = await runGit(['hash-object', '--stdin'], { gitDir: bare, stdin: Readable.from([Buffer.from('hel'), Buffer.from('lo\n')]) });
    expect(fromString.stdout.toString()).toBe('ce013625030ba8dba906f756967f9e9ca394464a\n');
    expect(fromStream.stdout.toString()).toBe(fromString.stdout.toString());
  });

  it('kills git and its process group when the deadline passes', async () => {
    const { bare } = createWorkspace();
    // upload-pack advertises its refs and then waits for the client forever: a stuck git.
    const input = new PassThrough();
    const started = Date.now();
    const failure = await runGit(['upload-pack', bare], { stdin: input, timeoutMs: 300 }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitTimeoutError);
    expect((failure as GitTimeoutError).timeoutMs).toBe(300);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('leaves no process behind after a timeout', async () => {
    const { bare } = createWorkspace();
    const stuck = startGit(['upload-pack', bare], { timeoutMs: 200 });
    const pid = stuck.child.pid ?? -1;
    expect(isAlive(pid)).toBe(true);
    await expect(stuck.finished).rejects.toBeInstanceOf(GitTimeoutError);
    expect(isAlive(pid)).toBe(false);
  });

  it('stops git when its output exceeds the limit', async () => {
    const workspace = createWorkspace({ 'big.txt': 'x'.repeat(200_000) });
    const failure = await runGit(['cat-file', 'blob', 'refs/heads/main:big.txt'], {
      gitDir: workspace.bare,
      maxOutputBytes: 10_000,
    }).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(GitOutputTooLargeError);
  });

  it('ignores the global and system configuration of the account svc runs as', async () => {
    const { bare } = createWorkspace();
    const home = tempDir();
    fs.writeFileSync(
      path.join(home, '.gitconfig'),
      '[user]\n\tname = Mallory\n\temail = mallory@evil.test\n[alias]\n\tpwn = !touch pwned\n[core]\n\thooksPath = /nonexistent\n[credential]\n\thelper = store\n',
    );
    fs.mkdirSync(path.join(home, '.config', 'git'), { recursive: true });
    fs.writeFileSync(path.join(home, '.config', 'git', 'config'), '[user]\n\tname = Xdg Mallory\n');
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME, GIT_DIR: process.env.GIT_DIR };
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = path.join(home, '.config');
    process.env.GIT_DIR = '/nonexistent';
    try {
      const name = await runGit(['config', '--get', 'user.name'], { gitDir: bare, okExitCodes: [1] });
      expect(name.exitCode).toBe(1);
      const all = await runGit(['config', '--list', '--show-origin'], { gitDir: bare });
      expect(all.stdout.toString()).not.toMatch(/Mallory|pwn|hooksPath|helper = store/);
      const alias = await runGit(['pwn'], { gitDir: bare, cwd: home }).catch((error: unknown) => error);
      expect(alias).toBeInstanceOf(GitError);
      expect(fs.existsSync(path.join(home, 'pwned'))).toBe(false);

      const env = gitEnvironment();
      expect(env.HOME).not.toBe(home);
      expect(fs.readdirSync(env.HOME ?? '')).toEqual([]);
      expect(env).toMatchObject({
        LC_ALL: 'C',
        GIT_TERMINAL_PROMPT: '0',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
      });
      expect(env.GIT_SSH_COMMAND).toContain('BatchMode=yes');
      expect(env.GIT_DIR).toBeUndefined();
      expect(env.GIT_ASKPASS).toBeUndefined();
    } finally {
      for (const [key, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
      }
    }
  });

  it('passes config through the environment, not argv', async () => {
    const { bare } = createWorkspace();
    const value = await runGit(['config', '--get', 'http.extraHeader'], {
      gitDir: bare,
      config: { 'http.extraHeader': 'Authorization: Basic c2VjcmV0' },
    });
    expect(value.stdout.toString().trim()).toBe('Authorization: Basic c2VjcmV0');
    const env = gitEnvironment({ config: { 'http.extraHeader': 'x' } });
    expect(env).toMatchObject({ GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'http.extraHeader', GIT_CONFIG_VALUE_0: 'x' });
    // And nothing was written to the repository's config file.
    expect(fs.readFileSync(path.join(bare, 'config'), 'utf8')).not.toContain('extraHeader');
  });
});
