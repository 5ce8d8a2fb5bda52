import { Type } from 'typebox';
import { patternMeaning } from '../../server/schema-errors.js';

/** A git branch name as `git check-ref-format --branch` accepts it (no leading dash, no `..`, no control characters). */
export const BranchName = Type.String({
  minLength: 1,
  maxLength: 255,
  pattern: patternMeaning(
    '^(?!-)(?!/)(?!.*//)(?!.*\\.\\.)(?!.*@\\{)(?!.*\\.lock(/|$))(?!.*/\\.)(?!\\.)(?!.*[/.]$)[^\\x00-\\x20~^:?*\\[\\\\\\x7f]+$',
    'a git branch name (no spaces, "..", "~", "^", ":", "?", "*", "[" or backslash; not starting with "-" or ending with "/" or ".")',
  ),
  description: 'A git branch name',
});

export const RepoUrl = Type.String({
  minLength: 1,
  maxLength: 2048,
  pattern: patternMeaning(
    '^(https?://|ssh://|git://|file://|/|[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:)\\S+$',
    'the address of a git repository without spaces: https://host/path, ssh://host/path, git://host/path, user@host:path, file:///path or an absolute local path',
  ),
  description: 'Any git remote: https://…, ssh://…, user@host:path, file://… or an absolute local path',
});

export const Project = Type.Object({
  id: Type.String(),
  name: Type.String(),
  slug: Type.String(),
  default_branch: Type.String(),
  repo_url: Type.Union([Type.String(), Type.Null()]),
  repository: Type.Union([Type.Literal('hosted'), Type.Literal('mirror')]),
  clone_url: Type.String(),
  created_by: Type.String(),
  bundled_model_access: Type.Boolean({ description: "Sessions get the operator's model gateway (SVC_LLM_API_KEY, SVC_LLM_BASE_URL) when their user is entitled too" }),
  created_at: Type.String(),
  updated_at: Type.String(),
});

/** A project's URL name. */
export const ProjectSlug = Type.String({
  minLength: 1,
  maxLength: 80,
  pattern: patternMeaning('^[a-z0-9]+(?:-[a-z0-9]+)*$', 'lowercase letters and digits in words joined by single hyphens, such as billing-api'),
});
