import { afterEach, describe, expect, it } from 'vitest';
import { ManualTimers } from '../testing/manual-timers.js';
import { Prerenderer, type PrerenderTarget } from './prerender.js';

/** Moves the pre-renderer's clock by `ms`, then lets the renders it started settle. */
async function pass(timers: ManualTimers, ms: number): Promise<void> {
  timers.advance(ms);
  await new Promise((resolve) => setImmediate(resolve));
}

describe('Prerenderer', () => {
  let prerenderer: Prerenderer | undefined;
  afterEach(() => prerenderer?.close());

  function start(options: { quietMs?: number; maxPending?: number; canRender?: () => boolean } = {}) {
    const rendered: PrerenderTarget[] = [];
    const errors: unknown[] = [];
    const timers = new ManualTimers();
    prerenderer = new Prerenderer({
      timers,
      quietMs: options.quietMs ?? 40,
      maxPending: options.maxPending ?? 10,
      canRender: options.canRender ?? (() => true),
      render: async (target) => {
        rendered.push(target);
        if (target.slug === 'broken') throw new Error('drawing failed');
      },
      onError: (error) => errors.push(error),
    });
    return { prerenderer, rendered, errors, timers };
  }

  it('renders only the last version of a burst, once the dashboard has been quiet', async () => {
    const { prerenderer, rendered, timers } = start({ quietMs: 300 });
    prerenderer.published({ accountId: 'a', slug: 'weekly', createdAt: 'c', version: 1 });
    await pass(timers, 150);
    // The timer armed by version 1 comes due 300 ms after it, only 150 ms after these: it waits again.
    for (let version = 2; version <= 5; version += 1) prerenderer.published({ accountId: 'a', slug: 'weekly', createdAt: 'c', version });
    await pass(timers, 200);
    expect(rendered).toEqual([]);
    await pass(timers, 250);
    expect(rendered).toEqual([{ accountId: 'a', slug: 'weekly', createdAt: 'c', version: 5 }]);
    expect(prerenderer.size).toBe(0);
  });

  it('keeps dashboards of different accounts and slugs apart', async () => {
    const { prerenderer, rendered, timers } = start();
    prerenderer.published({ accountId: 'a', slug: 'weekly', createdAt: 'c', version: 1 });
    prerenderer.published({ accountId: 'b', slug: 'weekly', createdAt: 'c', version: 7 });
    prerenderer.published({ accountId: 'a', slug: 'daily', createdAt: 'c', version: 2 });
    await pass(timers, 150);
    expect(rendered.map((target) => `${target.accountId}/${target.slug}@${target.version}`).sort()).toEqual(['a/daily@2', 'a/weekly@1', 'b/weekly@7']);
  });

  it('waits while no render thread is free, and leaves dashboards beyond its cap to their first visitor', async () => {
    let free = false;
    const { prerenderer, rendered, timers } = start({ maxPending: 2, canRender: () => free });
    prerenderer.published({ accountId: 'a', slug: 'one', createdAt: 'c', version: 1 });
    prerenderer.published({ accountId: 'a', slug: 'two', createdAt: 'c', version: 1 });
    prerenderer.published({ accountId: 'a', slug: 'three', createdAt: 'c', version: 1 });
    expect(prerenderer.size).toBe(2);
    await pass(timers, 150);
    expect(rendered).toEqual([]);
    free = true;
    await pass(timers, 150);
    expect(rendered.map((target) => target.slug).sort()).toEqual(['one', 'two']);
  });

  it('reports a failed render and goes on', async () => {
    const { prerenderer, rendered, errors, timers } = start();
    prerenderer.published({ accountId: 'a', slug: 'broken', createdAt: 'c', version: 1 });
    prerenderer.published({ accountId: 'a', slug: 'fine', createdAt: 'c', version: 1 });
    await pass(timers, 150);
    expect(rendered.map((target) => target.slug).sort()).toEqual(['broken', 'fine']);
    expect(errors.map((error) => (error as Error).message)).toEqual(['drawing failed']);
  });

  it('forgets pending renders when closed', async () => {
    const { prerenderer, rendered, timers } = start();
    prerenderer.published({ accountId: 'a', slug: 'weekly', createdAt: 'c', version: 1 });
    prerenderer.close();
    prerenderer.published({ accountId: 'a', slug: 'weekly', createdAt: 'c', version: 2 });
    await pass(timers, 120);
    expect(rendered).toEqual([]);
  });
});
