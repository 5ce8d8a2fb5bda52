import type { Migration } from 'kysely';
import type { Dialect } from '../database.js';

export type MigrationFactory = (dialect: Dialect) => Migration;

/** Column types that differ between the dialects; everything else is written once. */
export function columnTypes(dialect: Dialect) {
  const pg = dialect === 'postgres';
  return {
    timestamp: pg ? ('timestamptz' as const) : ('text' as const),
    bool: pg ? ('boolean' as const) : ('integer' as const),
    json: pg ? ('jsonb' as const) : ('text' as const),
    bigText: 'text' as const,
  };
}
