/**
 * PostgreSQL's LISTEN/NOTIFY, for hints between replicas: one connection of its own per listener, held
 * while svc runs and opened again a second after it is cut (a PostgreSQL restart, a proxy's idle
 * timeout). A message sent while a listener is away is not heard: only hints go this way, never work.
 */
import pg from 'pg';

export interface ChannelListener {
  close(): Promise<void>;
}

export interface ListenOptions {
  channel: string;
  /** Shown in pg_stat_activity, so an operator can tell whose connection it is. */
  applicationName: string;
  onMessage(payload: string): void;
  onError(error: unknown): void;
}

const RECONNECT_MS = 1_000;
const CHANNEL_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

export async function currentSchema(pool: pg.Pool): Promise<string> {
  return (await pool.query<{ schema: string }>('select current_schema() as schema')).rows[0]?.schema ?? '';
}

export async function notifyChannel(pool: pg.Pool, channel: string, payload: string): Promise<void> {
  await pool.query('select pg_notify($1, $2)', [channel, payload]);
}

/** Listens on the channel. A database that refuses LISTEN (a pooler in transaction mode) is reported and tried again. */
export async function listenOnChannel(pool: pg.Pool, options: ListenOptions): Promise<ChannelListener> {
  if (!CHANNEL_NAME.test(options.channel)) throw new Error(`"${options.channel}" is not a channel name: lower-case letters, digits and _`);
  let closed = false;
  let listener: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;

  const listen = async () => {
    const client = new pg.Client({ ...pool.options, application_name: options.applicationName.slice(0, 63) });
    client.on('notification', (notification) => options.onMessage(notification.payload ?? ''));
    client.on('error', (error) => {
      if (closed) return;
      options.onError(error);
      void client.end().catch(() => undefined);
      if (listener === client) listener = null;
      reconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${options.channel}`);
    if (closed) {
      await client.end();
      return;
    }
    listener = client;
  };
  const reconnect = () => {
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = null;
      listen().catch((error: unknown) => {
        options.onError(error);
        reconnect();
      });
    }, RECONNECT_MS);
    retry.unref();
  };
  await listen().catch((error: unknown) => {
    options.onError(error);
    reconnect();
  });

  return {
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      const client = listener;
      listener = null;
      await client?.end().catch(() => undefined);
    },
  };
}
