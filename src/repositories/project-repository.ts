/**
 * A project's repository as the rest of svc sees it (contract §4): either a bare repository svc hosts
 * itself (`<dataDir>/repos/<projectId>.git`, served over smart HTTP) or a bare mirror of the project's
 * `repo_url` (`<dataDir>/mirrors/<projectId>.git`, cloned lazily on first open). CR reads (tips, diffs,
 * merge previews) run against `path` in both cases; the only write, moving a branch, goes through
 * compareAndSwapBranch, which never forces.
 *
 * Hosted repositories refuse non-fast-forward pushes on every branch, and any push that updates or deletes
 * the default branch (git-host/guarded-receive.ts, with a pre-receive hook behind it); other branches may be
 * deleted, because CR merges leave branches behind and people clean them up by hand (see
 * HOSTED_REPOSITORY_CONFIG in git/repository.ts).
 *
 * Mirrors are fetched when the last fetch by this process is older than `mirrorMaxAgeMs` (SVC_MIRROR_MAX_AGE_MS, 5 s by default)
 * or when a caller forces it; concurrent refreshes of one mirror share one git process (fetchMirror).
 * Several replicas on one machine may share the data directory: the in-process lock only spares them
 * needless races, correctness comes from compare-and-swap (update-ref with the old value; a non-force push).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.js';
import { AppError } from '../errors.js';
import { branchRef, remoteKind } from '../git/arguments.js';
import { GitError, InvalidGitArgumentError, PushRejectedError, RefUpdateRaceError } from '../git/errors.js';
import { compareAndSwapRef } from '../git/merge.js';
import { ensureMirror, fetchMirror, invalidateMirror, pushBranch, type RemoteCredentials } from '../git/mirror.js';
import { withRepoLock } from '../git/repo-lock.js';
import { applyHostedRepositoryPolicy, initBare, isAncestor, resolveRef, setDefaultBranch } from '../git/repository.js';
import { publicUpstreamTransport } from './upstream-address.js';

/**
 * What opening a project's repository needs to know of the project, and nothing more: the product reads
 * it from its own rows (src/projects/repository-of.ts) and passes it in.
 */
export interface RepositorySource {
  id: string;
  defaultBranch: string;
  /** The repository this one mirrors (the project's repo_url), or null for a repository svc hosts. */
  upstream: string | null;
}

/** How a mirror reaches its upstream: read by the caller (project secrets, who created the project) and passed in. */
export interface UpstreamAccess {
  credentials: Pick<RemoteCredentials, 'token' | 'username'>;
  /**
   * Contact the upstream only at a public address, checked again before every network operation
   * (publicUpstreamTransport): a project a non-administrator created.
   */
  pinToPublicAddress: boolean;
}

/** Where repositories live and how old a mirror's last fetch may be: the configuration's part. */
export type RepositoryPlace = Pick<Config, 'dataDir' | 'mirrorMaxAgeMs'>;

export interface ProjectRepository {
  /** The bare repository svc operates on: the hosted repo, or the local mirror of repo_url. */
  readonly path: string;
  readonly kind: 'hosted' | 'mirror';
  /**
   * Mirrors: fetch from the upstream if stale, or always with force:true; hosted: no-op.
   * Throws UpstreamUnavailableError (AppError UPSTREAM_UNAVAILABLE, 502) when the upstream cannot be reached.
   */
  refresh(options?: { force?: boolean }): Promise<void>;
  /**
   * Moves refs/heads/<branch> from oldSha to newSha without ever forcing: update-ref compare-and-swap on a
   * hosted repository; on a mirror a non-force push of newSha to the upstream branch, then the mirror's ref.
   * Throws RefUpdateRaceError when the branch is no longer at oldSha (it moved, or the upstream refused the
   * push as non-fast-forward), PushRejectedError when newSha does not descend from oldSha or the upstream
   * refused the push for another reason (a hook, branch protection), UpstreamUnavailableError when the
   * upstream cannot be reached.
   */
  compareAndSwapBranch(branch: string, newSha: string, oldSha: string, options?: BranchSwapOptions): Promise<void>;
  /** Marks a mirror stale so the next refresh() fetches (the "mirror cache is invalidated" after a merge). */
  invalidate(): void;
}

export interface BranchSwapOptions {
  /**
   * The caller built newSha on top of oldSha (a merge commit whose first parent is oldSha, or a
   * fast-forward decided from the merge base), so the ancestry check — one git process — is skipped.
   */
  builtOnOldSha?: boolean;
}

export interface OpenProjectRepositoryOptions {
  /** Overrides the configured mirror age (SVC_MIRROR_MAX_AGE_MS; e.g. 0 to fetch on every refresh). */
  mirrorMaxAgeMs?: number;
}

export interface OpenRepositoryOptions extends OpenProjectRepositoryOptions {
  /** A mirror's credentials and address rule; asked for only when the source has an upstream. */
  upstreamAccess: () => Promise<UpstreamAccess>;
  /** A mirror's fetch ran (branches, the default one included, may have moved). */
  onFetched: () => void;
}

/** The project secret holding the upstream token of a mirror project (contract §4). */
export const GIT_TOKEN_SECRET = 'GIT_TOKEN';
/**
 * Optional: the user name sent with GIT_TOKEN. Defaults to `x-access-token`, which GitHub requires for app
 * tokens and GitHub, GitLab, Gitea and svc accept for personal tokens; Bitbucket wants `x-token-auth`.
 */
export const GIT_USERNAME_SECRET = 'GIT_USERNAME';

/** The upstream of a mirror project cannot be reached (network, DNS, authentication, missing repository, timeout). */
export class UpstreamUnavailableError extends AppError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('UPSTREAM_UNAVAILABLE', message);
    this.name = 'UpstreamUnavailableError';
    if (options.cause !== undefined) this.cause = options.cause;
  }
}

export function hostedRepositoryPath(config: Pick<Config, 'dataDir'>, projectId: string): string {
  return path.join(config.dataDir, 'repos', `${projectId}.git`);
}

export function mirrorRepositoryPath(config: Pick<Config, 'dataDir'>, projectId: string): string {
  return path.join(config.dataDir, 'mirrors', `${projectId}.git`);
}

/**
 * The project's repository, ready to read: a hosted repository is created if it is missing (projects made
 * before repositories were provisioned), a mirror is cloned on first open. Opening does not fetch; call
 * refresh(). Throws UpstreamUnavailableError when a mirror has never been cloned and its upstream cannot be
 * reached.
 */
export async function openRepository(
  place: RepositoryPlace,
  source: RepositorySource,
  options: OpenRepositoryOptions,
): Promise<ProjectRepository> {
  if (source.upstream === null) {
    const repoPath = hostedRepositoryPath(place, source.id);
    // Once per process: creates a repository that is missing, and brings the receive policy and hook of
    // one made by an older svc up to date. HEAD is left alone: only PATCH moves it (this row may be older).
    const key = path.resolve(repoPath);
    if (!provisionedHosted.has(key)) {
      if (await isRepository(repoPath)) await withRepoLock(repoPath, () => applyHostedRepositoryPolicy(repoPath));
      else await provisionHosted(repoPath, source.defaultBranch);
      provisionedHosted.add(key);
    }
    return new HostedRepository(repoPath);
  }
  const mirrorPath = mirrorRepositoryPath(place, source.id);
  const transport = upstreamTransport(source.upstream, await options.upstreamAccess());
  await cloneMirrorIfMissing(source.upstream, mirrorPath, transport);
  return new MirrorRepository({
    path: mirrorPath,
    upstreamUrl: source.upstream,
    transport,
    maxAgeMs: options.mirrorMaxAgeMs ?? place.mirrorMaxAgeMs,
    onFetched: options.onFetched,
  });
}

/**
 * Called when a project is created or its default branch changes. Hosted: creates the bare repository with
 * its receive policy, or re-applies the policy and points HEAD at the (new) default branch. Mirror: checks
 * that the upstream is a transport svc talks to (throws InvalidGitArgumentError otherwise); the clone happens
 * on first open, so creating a project never waits for the network.
 */
export async function provisionRepository(place: Pick<Config, 'dataDir'>, source: RepositorySource): Promise<void> {
  if (source.upstream !== null) {
    remoteKind(source.upstream);
    return;
  }
  await provisionHosted(hostedRepositoryPath(place, source.id), source.defaultBranch);
}

/** Deletes whatever svc keeps on disk for the project: the hosted repository and any mirror. Idempotent. */
export async function removeRepository(place: Pick<Config, 'dataDir'>, projectId: string): Promise<void> {
  const mirrorPath = mirrorRepositoryPath(place, projectId);
  for (const repoPath of [hostedRepositoryPath(place, projectId), mirrorPath]) {
    await withRepoLock(repoPath, () => fs.rm(repoPath, { recursive: true, force: true }));
  }
  invalidateMirror(mirrorPath);
  verifiedMirrors.delete(path.resolve(mirrorPath));
  provisionedHosted.delete(path.resolve(hostedRepositoryPath(place, projectId)));
}

/** Hosted repositories whose policy this process has applied (see openRepository). */
const provisionedHosted = new Set<string>();

async function provisionHosted(repoPath: string, defaultBranch: string): Promise<void> {
  await fs.mkdir(path.dirname(repoPath), { recursive: true });
  await withRepoLock(repoPath, async () => {
    // initBare is idempotent, but `init` ignores --initial-branch on an existing repository: set HEAD explicitly.
    await initBare(repoPath, { defaultBranch });
    await setDefaultBranch(repoPath, defaultBranch);
  });
}

async function isRepository(repoPath: string): Promise<boolean> {
  try {
    await fs.access(path.join(repoPath, 'HEAD'));
    return true;
  } catch {
    return false;
  }
}

/** What git needs to talk to the upstream, worked out just before each network operation. */
type UpstreamTransport = () => Promise<RemoteCredentials>;

/**
 * The credentials of a mirror project, and for a project a non-administrator created, the address checks
 * and pinning of publicUpstreamTransport on every network operation: its repo_url was checked when it was
 * created, but the name may point elsewhere since.
 */
function upstreamTransport(upstreamUrl: string, access: UpstreamAccess): UpstreamTransport {
  const credentials: RemoteCredentials = { ...access.credentials };
  if (!access.pinToPublicAddress) return async () => credentials;
  return async () => {
    const checked = await publicUpstreamTransport(upstreamUrl);
    if ('refusedAddress' in checked) {
      const reason = `${displayUrl(upstreamUrl)} now resolves to ${checked.refusedAddress}, a special-use address, and its project was not created by an administrator`;
      throw new UpstreamUnavailableError(unreachableMessage(upstreamUrl), { cause: new Error(reason) });
    }
    return { ...credentials, transportConfig: checked.config };
  };
}

/**
 * Mirrors this process has seen on disk with the given remote URL, so that opening a mirror for every CR
 * read costs no git process once it exists.
 */
const verifiedMirrors = new Map<string, string>();

async function cloneMirrorIfMissing(upstreamUrl: string, mirrorPath: string, transport: UpstreamTransport): Promise<void> {
  const key = path.resolve(mirrorPath);
  if (verifiedMirrors.get(key) === upstreamUrl && (await isRepository(mirrorPath))) return;
  try {
    await ensureMirror(upstreamUrl, mirrorPath, await transport());
  } catch (error) {
    // Another replica sharing the data directory may have renamed its clone into place first.
    if (!(await isRepository(mirrorPath))) throw upstreamFailure(upstreamUrl, error);
  }
  verifiedMirrors.set(key, upstreamUrl);
}

/** A URL fit for messages: any user name or password written into it is dropped. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.username || parsed.password) {
      parsed.username = '';
      parsed.password = '';
    }
    return parsed.toString();
  } catch {
    // scp-like and local paths carry no password.
    return url;
  }
}

function upstreamFailure(upstreamUrl: string, error: unknown): unknown {
  if (error instanceof UpstreamUnavailableError) return error;
  if (error instanceof InvalidGitArgumentError) {
    return new UpstreamUnavailableError(`The project's repo_url cannot be used: ${error.message}.`, { cause: error });
  }
  if (!(error instanceof GitError)) return error;
  // The same sentence whatever git said: "Connection refused", "HTTP 404" or a TLS error from a host and
  // port would tell whoever chose repo_url what answers there. git's own reason goes to the server log
  // (the cause, logged with every UPSTREAM_UNAVAILABLE answer).
  return new UpstreamUnavailableError(unreachableMessage(upstreamUrl), {
    cause: new GitError(`${error.message} (${gitFailureReason(error.stderr)})`, error),
  });
}

function unreachableMessage(upstreamUrl: string): string {
  return (
    `svc could not reach or read the project's repository ${displayUrl(upstreamUrl)}. ` +
    `Check repo_url and the project secret ${GIT_TOKEN_SECRET}; the server log has git's error.`
  );
}

/**
 * The line of git's stderr that says what failed: its first `fatal:` line ("'/srv/x' does not appear to
 * be a git repository", "Authentication failed for …", "unable to access …: Could not resolve host"),
 * else its first `error:` line, else its last line. Advice such as "Please make sure you have the correct
 * access rights / and the repository exists." follows the reason and is left out.
 */
export function gitFailureReason(stderr: string): string {
  const lines = stderr.split('\n').map((line) => line.trim()).filter((line) => line.length > 0);
  const line = lines.find((l) => /^fatal:/i.test(l)) ?? lines.find((l) => /^error:/i.test(l)) ?? lines.at(-1) ?? '';
  return line.replace(/^(?:fatal|error):\s*/i, '').replace(/[.\s]+$/, '');
}

function noProcess(args: string[]): { args: string[]; exitCode: null; signal: null; stderr: string } {
  return { args, exitCode: null, signal: null, stderr: '' };
}

/** svc never rewrites a branch: the new tip must contain the old one. */
async function assertFastForward(repoPath: string, ref: string, newSha: string, oldSha: string, options: BranchSwapOptions): Promise<void> {
  if (newSha === oldSha || options.builtOnOldSha) return;
  if (!(await isAncestor(repoPath, oldSha, newSha))) {
    throw new PushRejectedError(
      { ref, reason: `non-fast-forward: ${newSha} does not contain ${oldSha}, and svc never rewrites a branch` },
      noProcess(['merge-base', '--is-ancestor', oldSha, newSha]),
    );
  }
}

class HostedRepository implements ProjectRepository {
  readonly kind = 'hosted' as const;

  constructor(readonly path: string) {}

  async refresh(): Promise<void> {
    // The hosted repository is the truth; there is nothing to fetch.
  }

  async compareAndSwapBranch(branch: string, newSha: string, oldSha: string, options: BranchSwapOptions = {}): Promise<void> {
    const ref = branchRef(branch);
    await withRepoLock(this.path, async () => {
      await assertFastForward(this.path, ref, newSha, oldSha, options);
      await compareAndSwapRef(this.path, { ref, newSha, expectedOldSha: oldSha, reason: 'svc: merge' });
    });
  }

  invalidate(): void {
    // Nothing is cached for a hosted repository.
  }
}

interface MirrorRepositoryOptions {
  path: string;
  upstreamUrl: string;
  transport: UpstreamTransport;
  maxAgeMs: number;
  /** A fetch ran (branches, the default one included, may have moved). */
  onFetched: () => void;
}

class MirrorRepository implements ProjectRepository {
  readonly kind = 'mirror' as const;
  readonly path: string;
  private readonly upstreamUrl: string;
  private readonly transport: UpstreamTransport;
  private readonly maxAgeMs: number;
  private readonly onFetched: () => void;

  constructor(options: MirrorRepositoryOptions) {
    this.onFetched = options.onFetched;
    this.path = options.path;
    this.upstreamUrl = options.upstreamUrl;
    this.transport = options.transport;
    this.maxAgeMs = options.maxAgeMs;
  }

  async refresh(options: { force?: boolean } = {}): Promise<void> {
    try {
      const { fetched } = await fetchMirror(this.path, { ...(await this.transport()), force: options.force ?? false, maxAgeMs: this.maxAgeMs });
      if (fetched) this.onFetched();
    } catch (error) {
      throw upstreamFailure(this.upstreamUrl, error);
    }
  }

  async compareAndSwapBranch(branch: string, newSha: string, oldSha: string, options: BranchSwapOptions = {}): Promise<void> {
    const ref = branchRef(branch);
    const rejection = await withRepoLock(this.path, async () => {
      await assertFastForward(this.path, ref, newSha, oldSha, options);
      try {
        await pushBranch(this.path, this.upstreamUrl, { ...(await this.transport()), sha: newSha, ref });
      } catch (error) {
        if (error instanceof PushRejectedError) return error;
        throw upstreamFailure(this.upstreamUrl, error);
      }
      await this.followPushedBranch(ref, newSha);
      return null;
    });
    if (rejection === null) return;

    // Decide "lost a race" from the upstream's state rather than from the refusal's wording: fetch, and
    // if the branch is no longer at oldSha, someone else moved it; otherwise a hook or protection refused.
    await this.refresh({ force: true });
    const actual = await resolveRef(this.path, branch);
    if (actual !== oldSha) throw new RefUpdateRaceError({ ref, expectedOldSha: oldSha, actualSha: actual }, rejection);
    throw rejection;
  }

  invalidate(): void {
    invalidateMirror(this.path);
  }

  /**
   * The upstream now holds newSha, so the mirror's branch moves there too, without waiting for a fetch.
   * If another replica's fetch moved the mirror's ref in between, leave it to the next refresh.
   */
  private async followPushedBranch(ref: string, newSha: string): Promise<void> {
    const current = await resolveRef(this.path, ref.slice('refs/heads/'.length));
    if (current === newSha) return;
    try {
      await compareAndSwapRef(this.path, { ref, newSha, expectedOldSha: current, reason: 'svc: pushed upstream' });
    } catch (error) {
      if (!(error instanceof RefUpdateRaceError)) throw error;
      invalidateMirror(this.path);
    }
  }
}
