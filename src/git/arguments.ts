/**
 * The only way a caller-supplied value becomes part of a git argument list. Option flags are literals
 * written inside src/git; everything else (branch names, revisions, URLs, paths, messages) goes through
 * one of these checks first, so a value can never be read by git as an option (`--upload-pack=…`,
 * `-c core.sshCommand=…`) or as revision syntax the caller did not mean.
 */
import { InvalidGitArgumentError } from './errors.js';

/** Refuses values git could parse as an option, and NUL bytes (which would truncate the argument). */
export function userValue(what: string, value: string): string {
  if (value.length === 0) throw new InvalidGitArgumentError(what, value, 'must not be empty');
  if (value.startsWith('-')) throw new InvalidGitArgumentError(what, value, 'must not start with "-"');
  if (value.includes('\0')) throw new InvalidGitArgumentError(what, value, 'must not contain NUL');
  return value;
}

const FORBIDDEN_REF_CHARACTERS = new Set([' ', '~', '^', ':', '?', '*', '[', '\\']);

/**
 * Why `refname` breaks git's ref-name rules (git-check-ref-format(1), without --allow-onelevel,
 * --refspec-pattern or --normalize), or null when it is valid. Done in-process because it runs on every
 * request that names a branch and git's rules are short and stable.
 */
export function refNameProblem(refname: string): string | null {
  if (refname.length === 0) return 'is empty';
  if (refname === '@') return 'is "@"';
  if (refname.startsWith('/') || refname.endsWith('/')) return 'starts or ends with "/"';
  if (refname.endsWith('.')) return 'ends with "."';
  if (refname.includes('..')) return 'contains ".."';
  if (refname.includes('//')) return 'contains "//"';
  if (refname.includes('@{')) return 'contains "@{"';
  for (const character of refname) {
    const code = character.codePointAt(0) ?? 0;
    if (code < 0x20 || code === 0x7f) return 'contains a control character';
    if (FORBIDDEN_REF_CHARACTERS.has(character)) return `contains ${JSON.stringify(character)}`;
  }
  const components = refname.split('/');
  if (components.length < 2) return 'has a single component';
  for (const component of components) {
    if (component.startsWith('.')) return 'has a component starting with "."';
    if (component.endsWith('.lock')) return 'has a component ending with ".lock"';
  }
  return null;
}

/** Why `name` is not a valid short branch name (same answer as `git check-ref-format --branch`), or null. */
export function branchNameProblem(name: string): string | null {
  if (name.length === 0) return 'is empty';
  // `--branch` expands @{-N} (a previously checked-out branch); that means nothing on a bare repository.
  if (name.startsWith('@{-')) return 'is a reflog shorthand';
  if (name.startsWith('-')) return 'starts with "-"';
  if (name === 'HEAD') return 'is "HEAD"';
  // Checked as refs/heads/<name>, where a leading or trailing slash would be reported as "//" or as the ref's end.
  if (name.startsWith('/')) return 'starts with "/"';
  if (name.endsWith('/')) return 'ends with "/"';
  return refNameProblem(`refs/heads/${name}`);
}

export function isValidBranchName(name: string): boolean {
  return branchNameProblem(name) === null;
}

export function assertBranchName(name: string): string {
  const problem = branchNameProblem(name);
  if (problem) throw new InvalidGitArgumentError('branch name', name, problem);
  return name;
}

/** The full ref of a branch, `refs/heads/<name>`, after validating the name. */
export function branchRef(name: string): string {
  return `refs/heads/${assertBranchName(name)}`;
}

/** A full ref name such as `refs/heads/main`; short names are refused because they can be ambiguous with tags. */
export function assertFullRefName(ref: string): string {
  if (!ref.startsWith('refs/')) throw new InvalidGitArgumentError('ref', ref, 'must be a full name starting with "refs/"');
  const problem = refNameProblem(ref);
  if (problem) throw new InvalidGitArgumentError('ref', ref, problem);
  return ref;
}

const OBJECT_ID = /^[0-9a-f]{4,64}$/;

export function isObjectId(value: string): boolean {
  return OBJECT_ID.test(value);
}

/** A complete object id (40 hex for SHA-1, 64 for SHA-256): what merge results are compared against. */
export function assertFullObjectId(what: string, value: string): string {
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(value)) {
    throw new InvalidGitArgumentError(what, value, 'must be a full object id (40 or 64 lowercase hex digits)');
  }
  return value;
}

/**
 * A revision passed to git: an object id (abbreviated or full, SHA-1 or SHA-256) or a full ref name.
 * Nothing else: no `main~2`, `@{-1}`, `:/text` or `a..b`, so a value always means exactly one commit.
 */
export function assertRevision(revision: string): string {
  if (isObjectId(revision)) return revision;
  if (revision.startsWith('refs/')) return assertFullRefName(revision);
  throw new InvalidGitArgumentError('revision', revision, 'must be an object id or a full ref name (refs/…)');
}

/** A path inside a repository's tree, as used with `<rev>:<path>`. */
export function assertTreePath(treePath: string): string {
  if (treePath.length === 0) throw new InvalidGitArgumentError('path', treePath, 'must not be empty');
  if (/[\0\n]/.test(treePath)) throw new InvalidGitArgumentError('path', treePath, 'must not contain NUL or newline');
  // `<rev>:./x` and `<rev>:../x` are resolved against the current directory; tree paths are root-relative.
  if (treePath.startsWith('/') || treePath.split('/').some((part) => part === '.' || part === '..' || part === '')) {
    throw new InvalidGitArgumentError('path', treePath, 'must be relative to the repository root, without "." or ".." parts');
  }
  return treePath;
}

/** The transports svc talks to. `ext::` and `fd::` run commands or read descriptors, so they are never allowed. */
export type RemoteKind = 'https' | 'http' | 'ssh' | 'git' | 'file';

export function remoteKind(url: string): RemoteKind {
  userValue('remote URL', url);
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(url)?.[1]?.toLowerCase();
  if (scheme === 'https' || scheme === 'http' || scheme === 'ssh' || scheme === 'git' || scheme === 'file') return scheme;
  if (scheme !== undefined) throw new InvalidGitArgumentError('remote URL', url, `the ${scheme}:// transport is not supported`);
  if (url.includes('::')) throw new InvalidGitArgumentError('remote URL', url, 'remote helpers ("<transport>::") are not allowed');
  if (url.startsWith('/')) return 'file';
  // scp-like syntax: [user@]host:path, with no slash before the first colon.
  if (/^[^/:]+:/.test(url)) return 'ssh';
  throw new InvalidGitArgumentError('remote URL', url, 'must be an http(s), ssh, git or file URL, user@host:path, or an absolute path');
}

/** The protocols git may use for a remote, handed to git as GIT_ALLOW_PROTOCOL so a redirect cannot widen them. */
export const ALLOWED_PROTOCOLS = 'https:http:ssh:git:file';
