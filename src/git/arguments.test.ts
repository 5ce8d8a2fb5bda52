import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { describe, expect, it } from 'vitest';
import {
  assertBranchName,
  branchNameProblem,
  assertFullRefName,
  assertRevision,
  assertTreePath,
  branchRef,
  isValidBranchName,
  remoteKind,
  userValue,
} from './arguments.js';
import { InvalidGitArgumentError } from './errors.js';

describe('userValue', () => {
  it('refuses values git would read as options', () => {
    for (const value of ['-x', '--upload-pack=touch /tmp/pwned', '--', '-']) {
      expect(() => userValue('branch', value)).toThrow(InvalidGitArgumentError);
    }
    expect(() => userValue('branch', '')).toThrow(InvalidGitArgumentError);
    expect(() => userValue('branch', 'a\0b')).toThrow(InvalidGitArgumentError);
    expect(userValue('branch', 'feature/-x')).toBe('feature/-x');
  });
});

describe('branch names', () => {
  const names = [
    'main',
    'feature/x',
    'sess-01HZX',
    'ünïcode/ブランチ',
    'a.b',
    'v1.2.3',
    '-leading-dash',
    '--force',
    'HEAD',
    '@',
    'a@{b',
    '@{-1}',
    'a..b',
    'a/.hidden',
    '.dot',
    'x.lock',
    'dir.lock/x',
    'trailing.',
    'trailing/',
    '/leading',
    'double//slash',
    'has space',
    'tab\there',
    'tilde~1',
    'caret^',
    'colon:x',
    'question?',
    'star*',
    'bracket[',
    'back\\slash',
    'del\u007f',
    '',
    'a/b/c',
    'x@y',
  ];

  it('agree with git check-ref-format --branch', () => {
    for (const name of names) {
      // Run outside any repository: there `--branch` cannot expand @{-1} and refuses it, as we do.
      const git = spawnSync('git', ['check-ref-format', '--branch', name], { cwd: os.tmpdir(), env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', GIT_CEILING_DIRECTORIES: os.tmpdir() } });
      expect({ name, valid: isValidBranchName(name) }).toEqual({ name, valid: git.status === 0 });
    }
  });

  it('are turned into full refs only when valid', () => {
    expect(branchRef('main')).toBe('refs/heads/main');
    expect(() => branchRef('-x')).toThrow(InvalidGitArgumentError);
    expect(() => assertBranchName('a..b')).toThrow(/contains/);
  });

  it('say what is wrong with a name as it was given', () => {
    expect(branchNameProblem('/a')).toBe('starts with "/"');
    expect(branchNameProblem('a/')).toBe('ends with "/"');
    expect(branchNameProblem('a//b')).toContain('"//"');
  });
});

describe('revisions and refs', () => {
  it('accept object ids and full ref names only', () => {
    expect(assertRevision('0123abcd')).toBe('0123abcd');
    expect(assertRevision('refs/heads/main')).toBe('refs/heads/main');
    for (const value of ['main', 'HEAD~1', '--all', 'refs/heads/a..b', ':/fix', 'ABCDEF12']) {
      expect(() => assertRevision(value)).toThrow(InvalidGitArgumentError);
    }
    expect(() => assertFullRefName('heads/main')).toThrow(InvalidGitArgumentError);
  });

  it('tree paths are root-relative', () => {
    expect(assertTreePath('dir/file name é.txt')).toBe('dir/file name é.txt');
    for (const value of ['', '/abs', './x', 'a/../b', 'a//b', 'line\nbreak']) {
      expect(() => assertTreePath(value)).toThrow(InvalidGitArgumentError);
    }
  });
});

describe('remote URLs', () => {
  it('know the transports svc supports and refuse command-running ones', () => {
    expect(remoteKind('https://github.com/o/r.git')).toBe('https');
    expect(remoteKind('http://127.0.0.1:8080/git/x.git')).toBe('http');
    expect(remoteKind('ssh://git@host/o/r.git')).toBe('ssh');
    expect(remoteKind('git@github.com:o/r.git')).toBe('ssh');
    expect(remoteKind('file:///srv/r.git')).toBe('file');
    expect(remoteKind('/srv/repos/r.git')).toBe('file');
    for (const value of ['ext::sh -c touch% /tmp/pwned', 'fd::3', '--upload-pack=x', 'ftp://host/r', 'relative/path']) {
      expect(() => remoteKind(value)).toThrow(InvalidGitArgumentError);
    }
  });
});
