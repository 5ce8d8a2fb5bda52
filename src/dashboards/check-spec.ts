/**
 * A published body, from bytes to verdict: decoded, parsed and validated against spec 1. This is the
 * CPU-heavy part of publishing (a 20 KB spec costs about as much as storing it; a 16 MiB one, hundreds
 * of milliseconds), so SpecChecker runs it on worker threads and the request thread only stores.
 */
import type { Issue } from '../errors.js';
import { parseJsonBytes } from '../json-document.js';
import { ThreadPool } from '../thread-pool.js';
import type { HeaderColumns } from './store.js';
import type { DashboardSpec } from './spec-schema.js';
import { validateDashboardSpec } from './validate-spec.js';

/** What publishing needs from a valid spec: the slug, the columns listings show, and the text to store. */
export interface SpecSummary {
  slug: string;
  columns: HeaderColumns;
  /**
   * The body decoded (without a byte order mark), as the check already had it: a copy back from a check
   * thread costs far less than decoding a large body a second time in the request thread.
   */
  text: string;
  /** The spec's `svc` context, which says which project it claims to belong to (contract §3). */
  svc: DashboardSpec['svc'] | null;
}

export type SpecCheck = { kind: 'valid'; summary: SpecSummary } | { kind: 'unreadable'; message: string } | { kind: 'invalid'; issues: Issue[]; total: number };

function summarize(spec: DashboardSpec, text: string): SpecSummary {
  return {
    slug: spec.slug,
    text,
    svc: spec.svc ?? null,
    columns: {
      title: spec.title,
      subtitle: spec.subtitle ?? null,
      group_name: spec.group ?? null,
      group_order: spec.groupOrder ?? null,
      sort_order: spec.order ?? null,
      tone: spec.tone ?? null,
      layout: spec.layout ?? null,
    },
  };
}

export function checkSpecBytes(bytes: Uint8Array): SpecCheck {
  const parsed = parseJsonBytes(bytes);
  if (!parsed.ok) {
    return 'forbiddenKey' in parsed ? { kind: 'invalid', issues: [parsed.forbiddenKey], total: 1 } : { kind: 'unreadable', message: parsed.message };
  }
  const result = validateDashboardSpec(parsed.value, { sourceText: parsed.text });
  return result.ok ? { kind: 'valid', summary: summarize(result.spec, parsed.text) } : { kind: 'invalid', issues: result.issues, total: result.total };
}

/** Below this size a body is checked in the request thread: the trip to a thread would cost more. */
const INLINE_BYTES = 4 * 1024;
/**
 * Bodies a check thread holds at once. Under load they travel in batches, and the thread has its next
 * bodies before it finishes the current ones; a few large bodies still spread over several threads.
 */
const BODIES_PER_THREAD = 16;

export class SpecChecker {
  private readonly pool: ThreadPool<Uint8Array, SpecCheck> | undefined;

  /** `threads: 0` checks every body in the calling thread. */
  constructor(options: { threads: number; onThreadError?: (error: unknown) => void }) {
    this.pool =
      options.threads > 0
        ? new ThreadPool<Uint8Array, SpecCheck>({
            entry: new URL('./check-spec-thread.js', import.meta.url),
            threads: options.threads,
            jobsPerThread: BODIES_PER_THREAD,
            ...(options.onThreadError ? { onThreadError: options.onThreadError } : {}),
          })
        : undefined;
  }

  check(bytes: Uint8Array): Promise<SpecCheck> {
    if (!this.pool || bytes.length < INLINE_BYTES) return Promise.resolve(checkSpecBytes(bytes));
    return this.pool.run(bytes);
  }

  async close(): Promise<void> {
    await this.pool?.close();
  }
}
