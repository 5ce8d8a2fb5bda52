import { describe, expect, test } from 'vitest';
import { manifestInvalidError, parseManifest, readManifestFromTree } from './index.js';
import { PARSE_IN_THREAD_CHARS } from './read-manifest-from-tree.js';
import { MAX_ISSUES } from '../errors.js';

/** A branch as a map of root paths to file contents; records which paths were asked for. */
function branch(files: Record<string, string>) {
  const asked: string[] = [];
  const readFile = async (path: string) => {
    asked.push(path);
    return Object.hasOwn(files, path) ? (files[path] ?? null) : null;
  };
  return { readFile, asked };
}

const webhook = 'triggers:\n  - { slug: hook, type: webhook, secret_env: S, prompt: p }\n';

describe('readManifestFromTree', () => {
  test('a branch without a manifest gives null (it passes the merge gate)', async () => {
    const { readFile, asked } = branch({ 'README.md': '# hi' });
    expect(await readManifestFromTree(readFile)).toBeNull();
    expect(asked.sort()).toEqual(['svc.toml', 'svc.yaml', 'svc.yml']);
  });

  test.each(['svc.yaml', 'svc.yml'])('reads %s as YAML', async (filename) => {
    const result = await readManifestFromTree(branch({ [filename]: webhook }).readFile);
    expect(result).toMatchObject({ filename, issues: [], ignored: [] });
    expect(result?.triggers.map((trigger) => trigger.slug)).toEqual(['hook']);
  });

  test('reads the legacy svc.toml when it is the only manifest', async () => {
    const result = await readManifestFromTree(
      branch({ 'svc.toml': '[[triggers]]\nslug = "hook"\ntype = "webhook"\nsecret_env = "S"\nprompt = "p"\n' }).readFile,
    );
    expect(result).toMatchObject({ filename: 'svc.toml', issues: [] });
    expect(result?.triggers).toHaveLength(1);
  });

  test('an empty manifest file is an empty, valid manifest', async () => {
    const result = await readManifestFromTree(branch({ 'svc.yaml': '' }).readFile);
    expect(result).toMatchObject({ filename: 'svc.yaml', issues: [], triggers: [], errors: [] });
  });

  test('svc.yaml wins over svc.toml, and the leftover file is an issue', async () => {
    const result = await readManifestFromTree(branch({ 'svc.yaml': webhook, 'svc.toml': 'not even toml = = =' }).readFile);
    expect(result?.filename).toBe('svc.yaml');
    expect(result?.ignored).toEqual(['svc.toml']);
    expect(result?.triggers).toHaveLength(1);
    expect(result?.issues).toEqual([
      {
        path: '',
        message: 'svc.yaml and svc.toml both exist; only svc.yaml is read, so delete svc.toml (move anything still needed into svc.yaml)',
      },
    ]);
    expect(result?.errors).toEqual([]);
  });

  test('parses a manifest of 10,000 triggers, with a bad entry among them, as the inline parser does, while the calling thread keeps running', { timeout: 60_000 }, async () => {
    const entries = Array.from({ length: 10_000 }, (_, index) => `  - slug: t-${index}\n    type: cron\n    cron: "${index % 60} ${index % 59} * * * *"\n    prompt: "run {{ cron.fired_at }} ${index}"\n`);
    entries[4_321] = '  - slug: broken\n    type: cron\n    cron: "61 * * * * *"\n    prompt: p\n';
    const text = `triggers:\n${entries.join('')}`;
    expect(text.length).toBeGreaterThan(PARSE_IN_THREAD_CHARS);
    // Turns of the event loop taken while the manifest is read: none when it is parsed in this thread.
    let turns = 0;
    const ticker = setInterval(() => (turns += 1), 1);
    const read = await readManifestFromTree(branch({ 'svc.yaml': text }).readFile).finally(() => clearInterval(ticker));
    expect(turns).toBeGreaterThan(10);
    expect(read).toEqual({ ...parseManifest({ filename: 'svc.yaml', text }), ignored: [] });
    expect(read?.triggers).toHaveLength(9_999);
    expect(read?.errors).toEqual([expect.objectContaining({ index: 4_321, slug: 'broken' })]);
  });

  test('errors of the reader reach the caller', async () => {
    await expect(readManifestFromTree(async () => Promise.reject(new Error('repository unreachable')))).rejects.toThrow(
      'repository unreachable',
    );
  });
});

describe('manifestInvalidError', () => {
  test('is a 422 MANIFEST_INVALID naming the first issue, with the issues capped', () => {
    const issues = Array.from({ length: 150 }, (_, index) => ({ path: `/triggers/${index}/cron`, message: `problem ${index}` }));
    const error = manifestInvalidError('svc.yaml', issues);
    expect(error.status).toBe(422);
    expect(error.code).toBe('MANIFEST_INVALID');
    expect(error.message).toBe(
      'svc.yaml on the head branch is invalid, so the merge did not run: /triggers/0/cron: problem 0 (and 149 more; see issues)',
    );
    expect(error.toBody()).toMatchObject({ code: 'MANIFEST_INVALID', issues: issues.slice(0, MAX_ISSUES) });
  });

  test('a document-level issue has no path prefix', () => {
    const error = manifestInvalidError('svc.toml', [{ path: '', message: 'svc.toml line 2, column 1: invalid value' }]);
    expect(error.message).toBe('svc.toml on the head branch is invalid, so the merge did not run: svc.toml line 2, column 1: invalid value');
  });
});
