import { readFilesAtRef } from '../git/index.js';
import type { Config } from '../config.js';
import { MANIFEST_FILENAMES, manifestInvalidError, readManifestFromTree, sandboxLimitIssues, type SandboxMaximums } from '../manifest/index.js';

/**
 * Spec 2 merge mechanics rule 1: the manifest on the head commit (`svc.yaml`, `svc.yml` or the legacy
 * `svc.toml`) must validate before anything merges. All candidates are read with one `cat-file --batch`.
 * A head without a manifest passes. Throws 422 MANIFEST_INVALID with every issue otherwise.
 *
 * Beside the file's own rules: its `sandbox` settings within this server's maximums, and the Dockerfile it
 * names present on the head commit (a session would otherwise fail at its first boot, far from the merge).
 */
export async function assertHeadManifestValid(repoPath: string, headSha: string, maximums: SandboxMaximums): Promise<void> {
  const files = await readFilesAtRef(repoPath, headSha, MANIFEST_FILENAMES);
  const manifest = await readManifestFromTree(async (filename) => files.get(filename)?.toString('utf8') ?? null);
  if (!manifest) return;
  const issues = [...manifest.issues, ...sandboxLimitIssues(manifest.manifest.sandbox, maximums)];
  const { dockerfile } = manifest.manifest.sandbox;
  if (dockerfile !== null && !(await readFilesAtRef(repoPath, headSha, [dockerfile])).has(dockerfile)) {
    issues.push({
      path: '/sandbox/image/dockerfile',
      message: `sandbox.image.dockerfile ${JSON.stringify(dockerfile)} is not a file on this branch; commit it or correct the path`,
    });
  }
  if (issues.length > 0) throw manifestInvalidError(manifest.filename, issues);
}

/** The server's maximums for one sandbox (SVC_SANDBOX_MAX_*), as the manifest's checks take them. */
export function sandboxMaximumsOf(config: Pick<Config, 'sessions'>): SandboxMaximums {
  const { maxMemoryMb, maxCpus, maxPids, maxDiskMb } = config.sessions;
  return { memoryMb: maxMemoryMb, cpus: maxCpus, pids: maxPids, diskMb: maxDiskMb };
}
