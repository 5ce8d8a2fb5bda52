/** What the host shows of a sandbox's own disk (sandbox-disk.ts): its mount and its loop device, found by the session's id in their paths. */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

export function diskTraces(sessionId: string): string[] {
  const mounts = fs.readFileSync('/proc/self/mountinfo', 'utf8').split('\n').filter((line) => line.includes(sessionId)).map((line) => `mount: ${line}`);
  const loops = execFileSync('losetup', ['--list', '--noheadings', '--raw', '--output', 'NAME,BACK-FILE'], { encoding: 'utf8' }).split('\n').filter((line) => line.includes(sessionId)).map((line) => `loop: ${line}`);
  return [...mounts, ...loops];
}
