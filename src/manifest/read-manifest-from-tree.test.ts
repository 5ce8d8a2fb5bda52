import { describe, expect, test } from 'vitest';
import { manifestInvalidError, readManifestFromTree } from './index.js';
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
