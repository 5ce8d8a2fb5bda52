/**
 * Bare mirrors of repositories hosted elsewhere (projects with a `repo_url`, contract §4). svc computes
 * CR diffs and merges on the mirror and lands merges with a non-force push to the real remote.
 *
 * A mirror is `clone --bare` plus an explicit `+refs/heads/*:refs/heads/*` fetch, not `clone --mirror`:
 * --mirror copies every ref the host has (GitHub's refs/pull/* can be tens of thousands) and marks the
 * remote `mirror = true`, which would turn any plain `git push` into one that deletes and rewrites remote
 * refs. Only branches matter to CRs, and pushes name exactly one ref.
 *
 * Credentials: an HTTPS token is sent as `Authorization: Basic base64(<username>:<token>)` through
 * `http.extraHeader`, handed to git in GIT_CONFIG_* environment variables. It never appears in argv
 * (readable by every user via `ps`), in the mirror's config file, or in the stored remote URL.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { ALLOWED_PROTOCOLS, assertFullObjectId, assertFullRefName, remoteKind, userValue } from './arguments.js';
import { GitError, PushRejectedError } from './errors.js';
import { withRepoLock } from './repo-lock.js';
import { runGit, type RunGitOptions } from './run-git.js';

/** Network operations get longer than the 30 s default: a first clone of a large repository takes a while. */
export const DEFAULT_NETWORK_TIMEOUT_MS = 10 * 60_000;

export interface RemoteCredentials {
  /** A token for HTTPS remotes (GitHub, GitLab, Gitea, svc itself); ignored for ssh and local remotes. */
  token?: string;
  /**
   * The user name sent with the token. GitHub wants `x-access-token` for app/installation tokens and
   * accepts it for personal tokens; Gitea, GitLab personal tokens and svc accept any name.
   */
  username?: string;
  timeoutMs?: number;
  /** More transport configuration, e.g. the pinned address and no redirects of an upstream chosen by a non-administrator. */
  transportConfig?: Readonly<Record<string, string>>;
}

/** Environment-borne config and transport limits for talking to `url`. */
function remoteOptions(url: string, credentials: RemoteCredentials): Pick<RunGitOptions, 'config' | 'env' | 'timeoutMs'> {
  const kind = remoteKind(url);
  const config: Record<string, string> = { ...credentials.transportConfig };
  if (credentials.token !== undefined && (kind === 'https' || kind === 'http')) {
    const basic = Buffer.from(`${credentials.username ?? 'x-access-token'}:${credentials.token}`).toString('base64');
    config['http.extraHeader'] = `Authorization: Basic ${basic}`;
  }
  return {
    config,
    // Even if a URL or a redirect names ext:: or fd::, git refuses to use it.
    env: { GIT_ALLOW_PROTOCOL: ALLOWED_PROTOCOLS },
    timeoutMs: credentials.timeoutMs ?? DEFAULT_NETWORK_TIMEOUT_MS,
  };
}

async function isRepository(directory: string): Promise<boolean> {
  try {
    await fs.access(path.join(directory, 'HEAD'));
    return true;
  } catch {
    return false;
  }
}

const HEADS_REFSPEC = '+refs/heads/*:refs/heads/*';

/**
 * Make sure a mirror of `repoUrl` exists at `mirrorPath`, cloning it if it does not. The clone goes to a
 * temporary sibling and is renamed into place, so a failed or interrupted clone never leaves something
 * that looks like a mirror. An existing mirror is left as is, except that its remote URL follows `repoUrl`.
 */
export async function ensureMirror(
  repoUrl: string,
  mirrorPath: string,
  credentials: RemoteCredentials = {},
): Promise<{ created: boolean }> {
  const target = path.resolve(mirrorPath);
  const transport = remoteOptions(repoUrl, credentials);
  return withRepoLock(target, async () => {
    if (await isRepository(target)) {
      const current = await runGit(['config', '--get', 'remote.origin.url'], { gitDir: target, okExitCodes: [1] });
      if (current.stdout.toString('utf8').trim() !== repoUrl) {
        await runGit(['config', 'remote.origin.url', repoUrl], { gitDir: target });
      }
      return { created: false };
    }
    await fs.mkdir(path.dirname(target), { recursive: true });
    const staging = `${target}.clone-${randomUUID()}`;
    try {
      await runGit(['clone', '--bare', '--no-tags', '--quiet', '--', userValue('remote URL', repoUrl), staging], transport);
      await runGit(['config', 'remote.origin.fetch', HEADS_REFSPEC], { gitDir: staging });
      await fs.rename(staging, target);
      // A clone is as fresh as a fetch: a refresh right after it need not go to the network again.
      lastFetchedAt.set(target, Date.now());
      return { created: true };
    } finally {
      await fs.rm(staging, { recursive: true, force: true });
    }
  });
}

/**
 * Asks `repoUrl` for its branches, as a first clone would, without storing anything: whether svc can read
 * the repository with these credentials. Throws GitError with git's stderr when it cannot.
 */
export async function listRemoteHeads(repoUrl: string, credentials: RemoteCredentials = {}): Promise<string> {
  const result = await runGit(['ls-remote', '--heads', '--', userValue('remote URL', repoUrl)], remoteOptions(repoUrl, credentials));
  return result.stdout.toString('utf8');
}

export interface FetchMirrorOptions extends RemoteCredentials {
  /** Fetch even if the mirror is fresher than maxAgeMs, and do not settle for a fetch already under way. */
  force?: boolean;
  /** Skip the fetch when the last one in this process finished less than this long ago. Default 0 (always fetch). */
  maxAgeMs?: number;
}

/** When each mirror was last refreshed by this process, and the refresh under way, if any. */
const lastFetchedAt = new Map<string, number>();
const fetchesInFlight = new Map<string, Promise<void>>();

/**
 * Bring the mirror's branches to the remote's state: new and moved branches are updated (the remote is the
 * truth, so its history wins), deleted ones are pruned. Concurrent callers share one fetch; `force` waits
 * for a fetch under way and then fetches again, because that one may have started before the push the
 * caller needs to see (spec 2: "the mirror is force-refetched before concluding").
 */
export async function fetchMirror(mirrorPath: string, options: FetchMirrorOptions = {}): Promise<{ fetched: boolean }> {
  const target = path.resolve(mirrorPath);
  const inFlight = fetchesInFlight.get(target);
  if (!options.force) {
    const last = lastFetchedAt.get(target);
    if (last !== undefined && options.maxAgeMs !== undefined && Date.now() - last < options.maxAgeMs) {
      return { fetched: false };
    }
    if (inFlight) {
      await inFlight;
      return { fetched: true };
    }
  } else if (inFlight) {
    await inFlight.catch(() => undefined);
  }

  const fetching = withRepoLock(target, async () => {
    const url = await runGit(['config', '--get', 'remote.origin.url'], { gitDir: target });
    const transport = remoteOptions(url.stdout.toString('utf8').trim(), options);
    await runGit(['fetch', '--quiet', '--prune', '--no-tags', '--no-write-fetch-head', 'origin', HEADS_REFSPEC], {
      ...transport,
      gitDir: target,
    });
    lastFetchedAt.set(target, Date.now());
  });
  fetchesInFlight.set(target, fetching);
  try {
    await fetching;
    return { fetched: true };
  } finally {
    if (fetchesInFlight.get(target) === fetching) fetchesInFlight.delete(target);
  }
}

/** Forget when the mirror was refreshed, so the next fetchMirror with maxAgeMs fetches (e.g. after a merge). */
export function invalidateMirror(mirrorPath: string): void {
  lastFetchedAt.delete(path.resolve(mirrorPath));
}

export interface PushBranchOptions extends RemoteCredentials {
  /** The commit to push; it must exist in the mirror. */
  sha: string;
  /** The full destination ref, e.g. `refs/heads/main`. */
  ref: string;
}

/**
 * Push `sha` to `ref` on `remoteUrl` without force: the remote accepts it only as a fast-forward (or a new
 * branch). A refusal of any kind (non-fast-forward, fetch first, a hook or branch protection) throws
 * PushRejectedError, read from `--porcelain` output. The mirror's own refs are not touched; refresh it
 * with fetchMirror afterwards.
 */
export async function pushBranch(mirrorPath: string, remoteUrl: string, options: PushBranchOptions): Promise<void> {
  const sha = assertFullObjectId('sha', options.sha);
  const ref = assertFullRefName(options.ref);
  const transport = remoteOptions(remoteUrl, options);
  const result = await runGit(['push', '--porcelain', '--no-verify', '--', remoteUrl, `${sha}:${ref}`], {
    ...transport,
    gitDir: path.resolve(mirrorPath),
    // Exit 1 is push's "some ref was rejected"; the porcelain lines say which and why.
    okExitCodes: [1],
  });
  const details = { args: ['push', remoteUrl, `${sha}:${ref}`], exitCode: result.exitCode, signal: null, stderr: result.stderr };
  const rejection = parsePushPorcelain(result.stdout.toString('utf8')).find((line) => line.ref === ref && line.flag === '!');
  if (rejection) throw new PushRejectedError({ ref, reason: rejection.reason }, details);
  if (result.exitCode !== 0) throw GitError.fromExit(details);
}

interface PushStatusLine {
  flag: string;
  ref: string;
  reason: string;
}

/** `<flag>\t<from>:<to>\t<summary> (<reason>)` per ref; other lines ("To …", "Done") are skipped. */
function parsePushPorcelain(output: string): PushStatusLine[] {
  const lines: PushStatusLine[] = [];
  for (const line of output.split('\n')) {
    const [flag, refspec, summary] = line.split('\t');
    if (flag === undefined || refspec === undefined || summary === undefined || flag.length !== 1) continue;
    const reason = /\(([^)]*)\)\s*$/.exec(summary)?.[1] ?? summary.replace(/^\[[^\]]*\]\s*/, '');
    lines.push({ flag, ref: refspec.slice(refspec.indexOf(':') + 1), reason });
  }
  return lines;
}
