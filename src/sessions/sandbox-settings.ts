/**
 * A session's sandbox settings at each boot (create and resume): the `sandbox:` section of the manifest on
 * the session's base ref as it is now, over the server's defaults.
 *
 * Why the base ref and not the session's own branch: the session branch holds the agent's unreviewed edits,
 * and an agent must not choose its own next sandbox (nor the image it boots). The base ref is what the person
 * who started the session chose, by default the default branch, where the merge gate has checked the section.
 * When the base ref is gone, the default branch is read. Settings are bounded by the server's maximums again
 * here: a branch that never went through the gate, or maximums lowered since, must not pass.
 */
import path from 'node:path';
import type { ProjectRow } from '../accounts/access.js';
import type { Services } from '../context.js';
import { listBranchTips, readFilesAtRef, runGit } from '../git/index.js';
import { sandboxMaximumsOf } from '../changes/manifest-gate.js';
import { openProjectRepository } from '../projects/repository-of.js';
import { MANIFEST_FILENAMES, readManifestFromTree, sandboxLimitIssues } from '../manifest/index.js';
import type { SandboxSettings } from './providers/provider.js';
import type { SessionRow } from './session-row.js';

const MIB = 1024 * 1024;
/** A build context larger than this is refused: the folder of a Dockerfile holds a few small files. */
const MAX_CONTEXT_BYTES = 64 * MIB;

export class SandboxSettingsError extends Error {}

export async function sandboxSettings(services: Services, project: ProjectRow, session: SessionRow): Promise<SandboxSettings> {
  const config = services.config.sessions;
  const settings: SandboxSettings = { limits: { memoryBytes: config.memoryMb * MIB, cpus: config.cpus, pids: config.pids, diskBytes: config.diskMb * MIB }, image: null };
  const repo = await openProjectRepository(services, project);
  const tips = await listBranchTips(repo.path);
  const ref = tips.has(session.base_ref) ? session.base_ref : project.default_branch;
  const commit = tips.get(ref);
  if (!commit) return settings;
  const files = await readFilesAtRef(repo.path, commit, MANIFEST_FILENAMES);
  const manifest = await readManifestFromTree(async (filename) => files.get(filename)?.toString('utf8') ?? null);
  if (!manifest) return settings;
  const { sandbox } = manifest.manifest;
  const where = `${manifest.filename} on ${ref}`;
  // Only the section's own problems stop a boot: a bad trigger elsewhere in the file is the listing's business.
  const problems = [...manifest.issues.filter((issue) => issue.path === '/sandbox' || issue.path.startsWith('/sandbox/')), ...sandboxLimitIssues(sandbox, sandboxMaximumsOf(services.config))];
  const first = problems[0];
  if (first) throw new SandboxSettingsError(`${where}: ${first.path}: ${first.message}. Fix it on ${ref} and resume the session.`);
  settings.limits = {
    memoryBytes: sandbox.memory_bytes ?? settings.limits.memoryBytes,
    cpus: sandbox.cpus ?? settings.limits.cpus,
    pids: sandbox.pids ?? settings.limits.pids,
    diskBytes: sandbox.disk_bytes ?? settings.limits.diskBytes,
  };
  if (sandbox.dockerfile === null) return settings;
  const folder = path.posix.dirname(sandbox.dockerfile);
  const tree = await runGit(['rev-parse', '--verify', '--quiet', folder === '.' ? `${commit}^{tree}` : `${commit}:${folder}`], { gitDir: repo.path, okExitCodes: [1] });
  const treeId = tree.stdout.toString('utf8').trim();
  if (tree.exitCode !== 0 || !(await readFilesAtRef(repo.path, commit, [sandbox.dockerfile])).has(sandbox.dockerfile)) {
    throw new SandboxSettingsError(`${where}: sandbox.image.dockerfile ${JSON.stringify(sandbox.dockerfile)} is not a file on ${ref}; commit it there or correct the path, then resume the session.`);
  }
  const dockerfile = path.posix.basename(sandbox.dockerfile);
  settings.image = {
    key: `${treeId}:${dockerfile}`,
    dockerfile,
    source: `${sandbox.dockerfile} on ${ref}`,
    context: async () => {
      const archive = await runGit(['archive', '--format=tar', treeId], { gitDir: repo.path, maxOutputBytes: MAX_CONTEXT_BYTES, timeoutMs: 120_000 }).catch((error: Error) => {
        throw new SandboxSettingsError(`the build context of ${sandbox.dockerfile} (its folder ${folder}) could not be read: ${error.message}; it must be under ${MAX_CONTEXT_BYTES / MIB} MiB`);
      });
      return archive.stdout;
    },
  };
  return settings;
}
