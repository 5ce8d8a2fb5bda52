/**
 * A project's repo_url is read once when the project is made, so a mistyped address, a path that is not a
 * repository or a private repository without a token is refused then, with what git said and what to do,
 * rather than discovered at the first change request as a 502.
 */
import { validationFailed } from '../errors.js';
import { remoteKind } from '../git/arguments.js';
import { GitError, GitTimeoutError } from '../git/errors.js';
import { listRemoteHeads, type RemoteCredentials } from '../git/mirror.js';
import { gitFailureReason } from './project-repository.js';
import { publicUpstreamTransport, specialAddressRefusal } from './upstream-address.js';

/** Long enough for a slow host's first answer, short enough that a create request does not hang. */
const CHECK_TIMEOUT_MS = 30_000;

export interface UpstreamCheck {
  repoUrl: string;
  credentials: Pick<RemoteCredentials, 'token' | 'username'>;
  /** A non-administrator's upstream is contacted only at the public address it was checked for (see upstream-address.ts). */
  pinToPublicAddress: boolean;
}

/** Throws 400 VALIDATION_FAILED at /repo_url when git cannot list the repository's branches. */
export async function assertUpstreamReadable(check: UpstreamCheck): Promise<void> {
  const transport: RemoteCredentials = { ...check.credentials, timeoutMs: CHECK_TIMEOUT_MS };
  if (check.pinToPublicAddress) {
    const pinned = await publicUpstreamTransport(check.repoUrl);
    // A name that resolved to a public address a moment ago and to a special-use one now is not read:
    // what git said there would tell a non-administrator what answers inside.
    if ('refusedAddress' in pinned) throw specialAddressRefusal(pinned.refusedAddress);
    transport.transportConfig = pinned.config;
  }
  try {
    await listRemoteHeads(check.repoUrl, transport);
  } catch (error) {
    if (!(error instanceof GitError)) throw error;
    const said = error instanceof GitTimeoutError ? `no answer within ${CHECK_TIMEOUT_MS / 1000} s` : gitFailureReason(error.stderr) || error.message;
    throw validationFailed([{ path: '/repo_url', message: `cannot be read: git said "${said}". ${adviceFor(check, said)}` }]);
  }
}

/** What to do about what git said; a token is suggested only where one could help (http(s) answering that it wants one). */
function adviceFor(check: UpstreamCheck, said: string): string {
  const kind = remoteKind(check.repoUrl);
  if (kind === 'file') {
    return 'Give the path of an existing git repository (a bare repository, or a working copy with a .git directory) on the svc server.';
  }
  if (/could not resolve host|name or service not known|temporary failure in name resolution/i.test(said)) {
    return 'Check the host name in the address.';
  }
  if (/failed to connect|connection refused|timed out|no answer within|couldn't connect|network is unreachable/i.test(said)) {
    return 'Check the address and port, and that the svc server can reach that host.';
  }
  const wantsCredentials = /authentication failed|could not read username|terminal prompts disabled|\b401\b|\b403\b|repository not found|not found|access denied|permission denied/i.test(said);
  if (kind === 'https' || kind === 'http') {
    if (!wantsCredentials) return 'Check the address: it must be the URL you would give git clone.';
    if (check.credentials.token !== undefined) {
      return 'The host refused the token given: check that it may read this repository (and that the user name sent with it is one the host accepts, e.g. x-token-auth for Bitbucket), or check the address.';
    }
    return 'If the repository is private, give a token that may read it when you create the project (git_token; svc project create --git-token-stdin); svc keeps it as the project secret GIT_TOKEN. Otherwise check the address.';
  }
  if (kind === 'ssh' && wantsCredentials) {
    return 'svc connects over ssh with the keys of the account it runs as; give that account access, or use the https:// address with a token (git_token).';
  }
  return 'Check the address: it must be one you could give git clone.';
}
