import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { errorCatalog } from './errors.js';

describe('error catalog', () => {
  it('is documented row for row in the README error table', () => {
    const readme = fs.readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    for (const [code, entry] of Object.entries(errorCatalog)) {
      const shown = 'reasonOf' in entry ? `\`${entry.reasonOf}\`, reason \`${code}\`` : `\`${code}\``;
      expect(readme).toContain(`| ${entry.status} | ${shown} | ${entry.when} |`);
    }
    const documented = [...readme.matchAll(/^\| (\d{3}) \| `([A-Z_]+)`(?:, reason `([A-Z_]+)`)? \|/gm)].map((m) => m[3] ?? m[2]);
    expect(documented.sort()).toEqual(Object.keys(errorCatalog).sort());
  });
});
