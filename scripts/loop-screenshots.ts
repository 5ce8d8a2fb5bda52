/**
 * Regenerates the photographs of issue 23's loop in docs/screenshots/loop-*.png and the list of them in the
 * README (between the `loop-screenshots` markers): the same loop test/browser-loop.test.ts runs (a signed
 * webhook → a session → a change request → requested changes → the agent's fix → merged → the session's
 * story), with the real agent runtime on the process sandbox provider and the scripted model.
 *
 *   npx tsx scripts/loop-screenshots.ts       (needs /usr/bin/chromium; builds dist/ for the sandbox's programs)
 */
import fs from 'node:fs';
import path from 'node:path';
import buildOnce from '../test/support/build-once.js';
import { removeTempDirs } from '../test/support/change-request-fixtures.js';
import { startScriptedModel } from '../test/support/scripted-model.js';
import { startTestServer } from '../test/support/test-server.js';
import { openPage, signedInBrowser } from '../test/support/web-app-browser.js';
import { loopProject, runWebLoop } from '../test/support/web-loop.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'docs', 'screenshots');
const README = path.join(ROOT, 'README.md');
const START = '<!-- loop-screenshots: written by scripts/loop-screenshots.ts -->';
const END = '<!-- /loop-screenshots -->';
/** What each photograph is scrolled to, so the step's subject is in view. */
const SUBJECT: Record<string, string> = {
  'loop-1-webhook-fired': 'li.fire',
  'loop-2-session-working': '#conversation .tool',
  'loop-3-change-request': '.df',
  'loop-4-changes-requested': '.feedback-list',
  'loop-5-fix-pushed': '.df',
  'loop-6-merged': '.page-head',
  'loop-7-session-story': '#conversation',
  'loop-8-session-stopped': '.conversation-note',
};

function log(message: string): void {
  process.stderr.write(`loop-screenshots: ${message}\n`);
}

async function main(): Promise<void> {
  buildOnce();
  fs.mkdirSync(OUT, { recursive: true });
  const model = await startScriptedModel();
  const svc = await startTestServer();
  const { browser, cookie } = await signedInBrowser(svc);
  const shots: Array<{ file: string; caption: string }> = [];
  try {
    const project = await loopProject(svc, model);
    const { page } = await openPage(browser, svc, { cookie, width: 1200 });
    await page.setViewportSize({ width: 1200, height: 800 });
    await runWebLoop(svc, model, project, page, async (name, caption, shown) => {
      const subject = SUBJECT[name];
      if (subject) await shown.locator(subject).first().evaluate((node) => node.scrollIntoView({ block: 'center' }));
      const file = `${name}.png`;
      await shown.screenshot({ path: path.join(OUT, file) });
      shots.push({ file, caption });
      log(`wrote docs/screenshots/${file}`);
    });
  } finally {
    await browser.close();
    await svc.close();
    await model.close();
    removeTempDirs();
  }
  const readme = fs.readFileSync(README, 'utf8');
  const from = readme.indexOf(START);
  const to = readme.indexOf(END);
  if (from === -1 || to < from) throw new Error(`README.md has no ${START} … ${END} block to fill`);
  const list = shots.map((shot, index) => `${index + 1}. ${shot.caption}<br>[![${shot.file}](docs/screenshots/${shot.file})](docs/screenshots/${shot.file})`).join('\n');
  fs.writeFileSync(README, `${readme.slice(0, from + START.length)}\n${list}\n${readme.slice(to)}`);
  log(`listed ${shots.length} steps in README.md`);
}

await main();
process.exit(0);
