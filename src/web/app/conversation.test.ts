import { describe, expect, it } from 'vitest';
import { renderConversation } from './conversation.js';

describe('renderConversation', () => {
  it('shows who spoke, tool calls with input and result, and an edit as removed and added lines, all escaped', () => {
    const html = renderConversation([
      { info: { id: 'm1', role: 'user' }, parts: [{ id: 'p1', type: 'text', text: 'Fix <script>alert(1)</script>' }] },
      {
        info: { id: 'm2', role: 'assistant' },
        parts: [
          { id: 'p2', type: 'tool', tool: 'bash', state: { status: 'completed', title: 'run tests', input: { command: 'npm test' }, output: 'ok <1>' } },
          { id: 'p3', type: 'tool', tool: 'edit', state: { status: 'completed', input: { filePath: 'src/a.ts', oldString: 'a = 1', newString: 'a = 2' }, output: '' } },
          { id: 'p4', type: 'tool', tool: 'bash', state: { status: 'error', input: { command: 'false' }, error: 'exit 1' } },
          { id: 'p5', type: 'text', text: 'Done.' },
          { id: 'p6', type: 'step-start' },
        ],
      },
    ]);
    expect(html).toContain('<div class="turn turn-user" data-part="p1"><div class="turn-who">You</div><div class="turn-text">Fix &lt;script&gt;alert(1)&lt;/script&gt;</div></div>');
    expect(html).toContain('<span class="tool-name">bash</span> <span class="tool-title">run tests</span>');
    expect(html).toContain('&quot;command&quot;: &quot;npm test&quot;');
    expect(html).toContain('ok &lt;1&gt;');
    expect(html).toContain('<div class="edit-path">src/a.ts</div><pre class="edit-lines"><span class="dd">-a = 1</span>\n<span class="da">+a = 2</span></pre>');
    expect(html).toContain('<pre class="tool-io tool-error">exit 1</pre>');
    expect(html).toContain('<div class="turn-who">Agent</div><div class="turn-text">Done.</div>');
    expect(html).not.toContain('p6');
  });

  it('shows a reply that failed with why, escaped, where the runtime wrote no part', () => {
    const html = renderConversation([
      { info: { id: 'm1', role: 'user' }, parts: [{ id: 'p1', type: 'text', text: 'Hello' }] },
      { info: { id: 'm2', role: 'assistant', providerID: 'gw', modelID: 'm<1>', error: { name: 'APIError', data: { message: 'Quota <exceeded>' } } }, parts: [] },
    ]);
    expect(html).toContain(`<div class="turn turn-error" data-error="m2"><div class="turn-who">The agent's reply failed</div><div class="turn-text">APIError (model gw/m&lt;1&gt;): Quota &lt;exceeded&gt;.</div></div>`);
  });
});
