import fs from 'node:fs';
import path from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { initBare } from '../git/repository.js';
import {
  advertiseRefs,
  classifySmartHttpRequest,
  decodeRequestBody,
  gitProtocolFromHeader,
  requiredCapability,
  resultContentType,
  advertisementContentType,
} from './smart-http.js';
import { git, gitAsync, gitFailsAsync, removeTempDirs, startGitHttpServer, tempDir, type GitHttpServer } from '../git/testing/fixtures.js';

afterAll(removeTempDirs);

let server: GitHttpServer;
let hosted: string;

beforeEach(async () => {
  hosted = path.join(tempDir(), 'hosted.git');
  await initBare(hosted, { defaultBranch: 'main' });
  server = await startGitHttpServer({ repositories: { project: hosted } });
});

afterEach(async () => {
  await server.close();
});

async function cloneOverHttp(extra: string[] = []): Promise<string> {
  const work = path.join(tempDir(), 'clone');
  await gitAsync(['clone', '--quiet', ...extra, `${server.url}/project.git`, work]);
  return work;
}

/** Write one file and commit it on the clone's current branch, as a person at a terminal would. */
function commitIn(work: string, file: string, content: string, message: string): string {
  const target = path.join(work, file);
  fs.mkdirSync(path.dirname(target), { recursive: true });
  fs.writeFileSync(target, content);
  git(['-C', work, 'add', '--all']);
  git(['-C', work, 'commit', '--quiet', '-m', message]);
  return git(['-C', work, 'rev-parse', 'HEAD']);
}

describe('a hosted repository over smart HTTP', () => {
  it('is cloned, committed to and pushed to like any git host', async () => {
    const first = await cloneOverHttp();
    const sha = commitIn(first, 'hello.txt', 'hi\n', 'first commit');
    await gitAsync(['-C', first, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
    expect(git(['--git-dir', hosted, 'log', '--format=%H %s', 'main'])).toBe(`${sha} first commit`);

    git(['-C', first, 'checkout', '--quiet', '-b', 'sess-1']);
    const branchSha = commitIn(first, 'work.txt', 'agent work\n', 'agent work');
    await gitAsync(['-C', first, 'push', '--quiet', 'origin', 'HEAD']);
    expect(git(['--git-dir', hosted, 'rev-parse', 'refs/heads/sess-1'])).toBe(branchSha);

    const second = await cloneOverHttp();
    expect(git(['-C', second, 'log', '--format=%s', 'origin/sess-1'])).toBe('agent work\nfirst commit');
    expect(fs.readFileSync(path.join(second, 'hello.txt'), 'utf8')).toBe('hi\n');
  });

  it('speaks protocol v2 when the client asks for it, and v0 when it does not', async () => {
    const seed = await cloneOverHttp();
    commitIn(seed, 'a.txt', 'a\n', 'seed');
    await gitAsync(['-C', seed, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main']);
    server.requests.length = 0;

    await cloneOverHttp(['-c', 'protocol.version=2']);
    const v2 = server.requests.filter((request) => request.url.includes('upload-pack'));
    expect(v2.length).toBeGreaterThan(0);
    expect(v2.every((request) => request.headers['git-protocol'] === 'version=2')).toBe(true);

    server.requests.length = 0;
    const v0 = await cloneOverHttp(['-c', 'protocol.version=0']);
    expect(server.requests.some((request) => request.headers['git-protocol'] !== undefined)).toBe(false);
    expect(git(['-C', v0, 'log', '--format=%s'])).toBe('seed');
  });

  it('decodes gzip request bodies (git gzips requests over 1 KiB, e.g. many wants)', async () => {
    const seed = await cloneOverHttp();
    commitIn(seed, 'a.txt', 'a\n', 'seed');
    for (let index = 0; index < 40; index += 1) {
      git(['-C', seed, 'checkout', '--quiet', '-b', `branch-${index}`, 'main']);
      commitIn(seed, `f${index}.txt`, `${index}\n`, `commit ${index}`);
    }
    await gitAsync(['-C', seed, 'push', '--quiet', 'origin', '--all']);
    server.requests.length = 0;
    const clone = await cloneOverHttp();
    expect(server.requests.some((request) => request.headers['content-encoding'] === 'gzip')).toBe(true);
    expect(git(['-C', clone, 'branch', '-r']).split('\n')).toHaveLength(42);
  });

  it('refuses non-fast-forward pushes on every branch', async () => {
    const first = await cloneOverHttp();
    commitIn(first, 'a.txt', 'a\n', 'one');
    const kept = commitIn(first, 'a.txt', 'b\n', 'two');
    await gitAsync(['-C', first, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main', 'HEAD:refs/heads/sess-1']);
    git(['-C', first, 'reset', '--quiet', '--hard', 'HEAD~1']);
    commitIn(first, 'a.txt', 'rewritten\n', 'rewritten history');

    for (const branch of ['main', 'sess-1']) {
      const failure = await gitFailsAsync(['-C', first, 'push', '--force', 'origin', `HEAD:refs/heads/${branch}`]);
      expect(failure).toMatch(/remote rejected|denying non-fast-forward/);
      expect(git(['--git-dir', hosted, 'rev-parse', `refs/heads/${branch}`])).toBe(kept);
    }
  });

  it('lets session branches be deleted but never the default branch', async () => {
    const first = await cloneOverHttp();
    const sha = commitIn(first, 'a.txt', 'a\n', 'one');
    await gitAsync(['-C', first, 'push', '--quiet', 'origin', 'HEAD:refs/heads/main', 'HEAD:refs/heads/sess-1']);

    await gitAsync(['-C', first, 'push', '--quiet', 'origin', '--delete', 'sess-1']);
    expect(git(['--git-dir', hosted, 'branch', '--list', 'sess-1'])).toBe('');

    const failure = await gitFailsAsync(['-C', first, 'push', 'origin', '--delete', 'main']);
    expect(failure).toContain('default branch');
    expect(git(['--git-dir', hosted, 'rev-parse', 'refs/heads/main'])).toBe(sha);
  });

  it('answers 404 for the dumb protocol and 415 for a wrong content type', async () => {
    const dumb = await fetch(`${server.url}/project.git/info/refs`);
    expect(dumb.status).toBe(404);
    const objects = await fetch(`${server.url}/project.git/objects/info/packs`);
    expect(objects.status).toBe(404);
    const wrongType = await fetch(`${server.url}/project.git/git-upload-pack`, {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: '0000',
    });
    expect(wrongType.status).toBe(415);
  });

  it('advertises refs with the service preamble for v0 and without it for v2', async () => {
    const response = await fetch(`${server.url}/project.git/info/refs?service=git-receive-pack`);
    expect(response.headers.get('content-type')).toBe('application/x-git-receive-pack-advertisement');
    expect(response.headers.get('cache-control')).toContain('no-cache');
    expect((await response.text()).startsWith('001f# service=git-receive-pack\n0000')).toBe(true);

    const v2 = await advertiseRefs(hosted, 'git-upload-pack', { gitProtocol: 'version=2' });
    expect(v2.toString('utf8').startsWith('000eversion 2\n')).toBe(true);
  });
});

describe('smart-HTTP helpers', () => {
  it('name the capability each service needs', () => {
    expect(requiredCapability('git-upload-pack')).toBe('project.read');
    expect(requiredCapability('git-receive-pack')).toBe('project.gitops.push');
  });

  it('classify requests', () => {
    expect(classifySmartHttpRequest({ method: 'GET', subPath: '/info/refs', serviceParameter: 'git-upload-pack' })).toEqual({
      action: 'advertise',
      service: 'git-upload-pack',
    });
    expect(classifySmartHttpRequest({ method: 'POST', subPath: '/git-receive-pack' })).toEqual({
      action: 'service',
      service: 'git-receive-pack',
    });
    expect(classifySmartHttpRequest({ method: 'GET', subPath: '/info/refs', serviceParameter: 'git-upload-archive' })).toBeNull();
    expect(classifySmartHttpRequest({ method: 'GET', subPath: '/git-upload-pack' })).toBeNull();
    expect(classifySmartHttpRequest({ method: 'GET', subPath: '/HEAD' })).toBeNull();
  });

  it('name the content types', () => {
    expect(advertisementContentType('git-upload-pack')).toBe('application/x-git-upload-pack-advertisement');
    expect(resultContentType('git-receive-pack')).toBe('application/x-git-receive-pack-result');
  });

  it('pass only well-formed Git-Protocol headers', () => {
    expect(gitProtocolFromHeader('version=2')).toBe('version=2');
    expect(gitProtocolFromHeader('version=2:object-format=sha1')).toBe('version=2:object-format=sha1');
    expect(gitProtocolFromHeader('version=2; rm -rf /')).toBeUndefined();
    expect(gitProtocolFromHeader(undefined)).toBeUndefined();
  });

  it('gunzip request bodies and refuse unknown encodings', async () => {
    const gzipped = Readable.from([gzipSync(Buffer.from('0032want abc\n0000'))]);
    const decoded = decodeRequestBody(gzipped, 'gzip');
    expect(decoded).not.toBeNull();
    expect(await text(decoded ?? new PassThrough())).toBe('0032want abc\n0000');
    const plain = Readable.from([Buffer.from('x')]);
    expect(decodeRequestBody(plain, undefined)).toBe(plain);
    expect(decodeRequestBody(plain, 'br')).toBeNull();
  });
});
