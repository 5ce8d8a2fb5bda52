import { describe, expect, it } from 'vitest';
import { boundedConversation, MAX_STORED_BYTES, MAX_STORED_TEXT, type RuntimeMessage } from './session-conversation.js';

describe('boundedConversation', () => {
  it('keeps what a reader sees, cuts long texts and results, and leaves out the oldest messages past the bound', () => {
    const long = 'x'.repeat(MAX_STORED_TEXT + 5);
    const one = boundedConversation([
      {
        info: { id: 'm1', role: 'assistant' },
        parts: [
          { id: 'p1', type: 'step-start' },
          { id: 'p2', type: 'text', text: long },
          { id: 'p3', type: 'tool', tool: 'bash', state: { status: 'completed', input: { command: long }, output: long, title: 'run' } },
        ],
      },
    ]);
    const [message] = JSON.parse(one.json) as RuntimeMessage[];
    expect(message?.parts?.map((part) => part.id)).toEqual(['p2', 'p3']);
    expect(message?.parts?.[0]?.text).toBe(`${'x'.repeat(MAX_STORED_TEXT)}\n… 5 more characters`);
    expect(String(message?.parts?.[1]?.state?.output)).toMatch(/… 5 more characters$/);
    expect(typeof message?.parts?.[1]?.state?.input).toBe('string');
    expect(one.omitted).toBe(0);

    const many: RuntimeMessage[] = Array.from({ length: 300 }, (_, index) => ({ info: { id: `m${index}`, role: 'assistant' }, parts: [{ id: `p${index}`, type: 'text', text: 'y'.repeat(10_000) }] }));
    const bounded = boundedConversation(many);
    expect(Buffer.byteLength(bounded.json)).toBeLessThanOrEqual(MAX_STORED_BYTES);
    const kept = JSON.parse(bounded.json) as RuntimeMessage[];
    expect(bounded.omitted + kept.length).toBe(300);
    expect(bounded.omitted).toBeGreaterThan(0);
    expect(kept.at(-1)?.info?.id).toBe('m299');
  });
});
