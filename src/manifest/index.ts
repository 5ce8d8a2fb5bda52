/** The manifest module: parse and validate `svc.yaml` / `svc.toml` (spec 3 "Trigger", spec 2 merge gate). */
export {
  parseManifest,
  formatOf,
  MANIFEST_FILENAMES,
  MAX_MANIFEST_BYTES,
  type ManifestFilename,
  type ParseManifestInput,
  type ParsedManifest,
  type TriggerError,
} from './parse-manifest.js';
export { readManifestFromTree, type FileReader, type ManifestFromTree } from './read-manifest-from-tree.js';
export { formatMemory, sandboxLimitIssues, type SandboxMaximums } from './sandbox-section.js';
export { manifestInvalidError } from './manifest-invalid-error.js';
export { cronSchedule, checkCronExpression, CRON_PATTERN_OPTIONS, type CronCheck } from './cron-expression.js';
export { checkRunAt, type RunAtCheck } from './run-at.js';
export { checkTimezone, type TimezoneCheck } from './timezone.js';
export type { ManifestFormat } from './read-document.js';
export * from './manifest-schema.js';
