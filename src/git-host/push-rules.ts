/**
 * What a push to a hosted repository may do (contract §2): create, update or delete branches
 * (`refs/heads/*`), except that the default branch is written only by a change-request merge. Pushing it
 * is refused for every token, its deletion too; the one exception is creating it while it does not exist
 * yet (the first push into a new project's empty repository). Nothing outside `refs/heads/` is accepted:
 * tags, notes and other namespaces would be history that no change request reviewed.
 */
import { isZeroId, type RefCommand } from '../git/receive-commands.js';

export interface PushRules {
  /** The project's default branch (its short name), read when the push arrives, so it follows PATCH. */
  defaultBranch: string;
  /** Set for a session's credentials: the one ref they may push (`refs/heads/<session id>`). */
  onlyRef?: string | null;
}

/** Why svc refuses `command`, in words for the person at the terminal; null when the command may go to git. */
export function pushRefusal(command: RefCommand, rules: PushRules): string | null {
  const { ref } = command;
  if (!ref.startsWith('refs/heads/')) return namespaceRefusal(ref);
  const branch = ref.slice('refs/heads/'.length);
  if (rules.onlyRef && ref !== rules.onlyRef) {
    return `this session's credentials push only its own branch ${rules.onlyRef.slice('refs/heads/'.length)}: git push origin HEAD`;
  }
  if (branch === 'HEAD') return 'a branch named HEAD would be mistaken for git\'s HEAD; push to another branch name';
  if (branch === rules.defaultBranch) {
    if (isZeroId(command.newId)) return `${branch} is the default branch of this project and cannot be deleted`;
    if (!isZeroId(command.oldId)) {
      return `${branch} is the default branch; it changes only by merging a change request: push a branch and run svc cr open`;
    }
  }
  return null;
}

function namespaceRefusal(ref: string): string {
  const only = 'svc accepts pushes to branches (refs/heads/*) only';
  if (ref.startsWith('refs/tags/')) return `tags cannot be pushed: ${only}`;
  if (ref.startsWith('refs/svc/')) return `refs/svc/* belongs to svc itself: ${only}`;
  if (ref.startsWith('refs/notes/')) return `notes cannot be pushed: ${only}`;
  if (ref.startsWith('refs/remotes/')) return `remote-tracking refs cannot be pushed: ${only}`;
  return `${ref} is not a branch: ${only}`;
}

/** The `remote:` lines that go with a refused push of the default branch: what to do instead. */
export function defaultBranchAdvice(defaultBranch: string): string[] {
  return [
    `svc: ${defaultBranch} is the default branch of this project. It changes only when a change request is merged.`,
    'svc: Push your commits to a branch of their own and open a change request:',
    'svc:   git push origin HEAD:refs/heads/<your-branch>',
    'svc:   svc cr open --title "<what it does>"',
  ];
}
