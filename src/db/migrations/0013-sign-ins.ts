import { sql } from 'kysely';
import type { MigrationFactory } from './column-types.js';

/**
 * A browser's signed-in state was stored in `web_sessions`, a name easily read as the agent sessions of
 * spec 3; it is `sign_ins` from here on. The rows are kept: nobody is signed out. PostgreSQL's own names
 * for the key and the reference follow the table; a user's sign-ins are found by user (sign out everywhere,
 * a disabled user) through an index of their own.
 */
export const signIns: MigrationFactory = (dialect) => ({
  async up(db) {
    await db.schema.alterTable('web_sessions').renameTo('sign_ins').execute();
    if (dialect === 'postgres') {
      await sql`alter index if exists web_sessions_pkey rename to sign_ins_pkey`.execute(db);
      await sql`
        do $$ begin
          if exists (select 1 from pg_constraint where conname = 'web_sessions_user_id_fkey' and conrelid = 'sign_ins'::regclass) then
            alter table sign_ins rename constraint web_sessions_user_id_fkey to sign_ins_user_id_fkey;
          end if;
        end $$`.execute(db);
    }
    await db.schema.createIndex('sign_ins_user').on('sign_ins').column('user_id').execute();
  },
});
