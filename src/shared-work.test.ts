import { describe, expect, it } from 'vitest';
import { SharedWork } from './shared-work.js';

/** Work that settles when the test says so, and records whether it was told to stop. */
function controllable() {
  let finish: (value: string) => void = () => undefined;
  const state = { started: 0, stopped: false };
  const work = (signal: AbortSignal): Promise<string> => {
    state.started += 1;
    signal.addEventListener('abort', () => {
      state.stopped = true;
    });
    return new Promise<string>((resolve) => {
      finish = resolve;
    });
  };
  return { state, work, finish: (value: string) => finish(value) };
}

describe('SharedWork', () => {
  it('runs the work once for everyone asking while it is under way', async () => {
    const shared = new SharedWork<string>();
    const { state, work, finish } = controllable();
    const first = shared.run('page', new AbortController().signal, work);
    const second = shared.run('page', new AbortController().signal, work);
    finish('drawn');
    expect(await Promise.all([first, second])).toEqual(['drawn', 'drawn']);
    expect(state.started).toBe(1);
    expect(shared.size).toBe(0);
  });

  it('stops the work only when the last asker has gone, and each asker that leaves gets its reason', async () => {
    const shared = new SharedWork<string>();
    const { state, work } = controllable();
    const one = new AbortController();
    const two = new AbortController();
    const first = shared.run('page', one.signal, work);
    const second = shared.run('page', two.signal, work);
    one.abort(new Error('first visitor left'));
    await expect(first).rejects.toThrow('first visitor left');
    expect(state.stopped).toBe(false);
    two.abort(new Error('second visitor left'));
    await expect(second).rejects.toThrow('second visitor left');
    expect(state.stopped).toBe(true);
    // The next asker starts afresh rather than joining work being stopped.
    expect(shared.size).toBe(0);
    void shared.run('page', undefined, work);
    expect(state.started).toBe(2);
  });

  it('keeps the work going for an asker without a signal (a pre-render)', async () => {
    const shared = new SharedWork<string>();
    const { state, work, finish } = controllable();
    const kept = shared.run('page', undefined, work);
    const visitor = new AbortController();
    const left = shared.run('page', visitor.signal, work);
    visitor.abort(new Error('gone'));
    await expect(left).rejects.toThrow('gone');
    expect(state.stopped).toBe(false);
    finish('drawn');
    expect(await kept).toBe('drawn');
  });

  it('refuses at once an asker that has already gone', async () => {
    const shared = new SharedWork<string>();
    const { state, work } = controllable();
    const gone = new AbortController();
    gone.abort(new Error('already gone'));
    await expect(shared.run('page', gone.signal, work)).rejects.toThrow('already gone');
    expect(state.started).toBe(0);
  });
});
