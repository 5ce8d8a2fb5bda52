/**
 * Wakes a background task in every replica sharing svc's database, not only in the one where something
 * happened. The scheduler of the replica that read a new trigger set wakes at once; the others would
 * sleep until their poll (a minute by default) with a stale idea of the next fire, so one replica would
 * fire every burst alone, and a trigger added a moment before that replica stopped would fire up to a
 * poll late. A wake is a hint: a lost one only delays work until the task's own interval.
 *
 * PostgreSQL: LISTEN/NOTIFY on one channel, each message naming the schema (several svc instances may
 * share one database, each in a schema of its own) and the sender, which has already woken itself.
 * SQLite: the replicas are processes on one machine sharing the data directory, so a file per task in
 * it, watched with inotify, carries the wake.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import type { DriverClient } from '../db/database.js';
import { currentSchema, listenOnChannel, notifyChannel } from '../db/pg-channel.js';

export interface ReplicaWakes {
  /** Wakes the task here and in the other replicas. */
  wakeEverywhere(task: string): void;
  close(): Promise<void>;
}

export interface ReplicaWakesOptions {
  driver: DriverClient;
  dataDir: string;
  /** Wakes a task in this process. */
  wake(task: string): void;
  onError(error: unknown): void;
}

const CHANNEL = 'svc_wake';
const TASK_NAME = /^[a-z0-9-]{1,64}$/;

export async function startReplicaWakes(options: ReplicaWakesOptions): Promise<ReplicaWakes> {
  return options.driver.dialect === 'postgres' ? notifyWakes(options.driver.pool, options) : fileWakes(path.join(options.dataDir, 'wakes'), options);
}

interface WakeMessage {
  schema: string;
  task: string;
  from: string;
}

async function notifyWakes(pool: pg.Pool, options: ReplicaWakesOptions): Promise<ReplicaWakes> {
  const self = randomUUID();
  const schema = await currentSchema(pool);
  const listener = await listenOnChannel(pool, {
    channel: CHANNEL,
    // Named with its schema, so an operator (or a test) can tell which svc a listener belongs to.
    applicationName: `svc wakes ${schema}`,
    onError: options.onError,
    onMessage(payload) {
      let message: Partial<WakeMessage>;
      try {
        message = JSON.parse(payload) as Partial<WakeMessage>;
      } catch {
        return;
      }
      if (message.schema !== schema || message.from === self || typeof message.task !== 'string' || !TASK_NAME.test(message.task)) return;
      options.wake(message.task);
    },
  });
  return {
    wakeEverywhere(task) {
      options.wake(task);
      const message: WakeMessage = { schema, task, from: self };
      notifyChannel(pool, CHANNEL, JSON.stringify(message)).catch(options.onError);
    },
    close: () => listener.close(),
  };
}

function fileWakes(directory: string, options: ReplicaWakesOptions): ReplicaWakes {
  const self = randomUUID();
  fs.mkdirSync(directory, { recursive: true, mode: 0o700 });
  const watcher = fs.watch(directory, (_event, filename) => {
    const task = filename?.toString();
    if (!task || !TASK_NAME.test(task)) return;
    let from: string;
    try {
      from = fs.readFileSync(path.join(directory, task), 'utf8').trim();
    } catch {
      return;
    }
    if (from !== self) options.wake(task);
  });
  watcher.on('error', options.onError);
  watcher.unref();
  return {
    wakeEverywhere(task) {
      options.wake(task);
      try {
        // Written whole and renamed into place, so a watcher never reads half a sender.
        const staging = path.join(directory, `.${task}.${self}`);
        fs.writeFileSync(staging, `${self}\n`);
        fs.renameSync(staging, path.join(directory, task));
      } catch (error) {
        options.onError(error);
      }
    },
    async close() {
      watcher.close();
    },
  };
}
