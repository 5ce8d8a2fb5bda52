import { readFilesAtRef } from '../git/index.js';
import { MANIFEST_FILENAMES, manifestInvalidError, readManifestFromTree } from '../manifest/index.js';

/**
 * Spec 2 merge mechanics rule 1: the manifest on the head commit (`svc.yaml`, `svc.yml` or the legacy
 * `svc.toml`) must validate before anything merges. All candidates are read with one `cat-file --batch`.
 * A head without a manifest passes. Throws 422 MANIFEST_INVALID with every issue otherwise.
 */
export async function assertHeadManifestValid(repoPath: string, headSha: string): Promise<void> {
  const files = await readFilesAtRef(repoPath, headSha, MANIFEST_FILENAMES);
  const manifest = await readManifestFromTree(async (filename) => files.get(filename)?.toString('utf8') ?? null);
  if (manifest && manifest.issues.length > 0) throw manifestInvalidError(manifest.filename, manifest.issues);
}
