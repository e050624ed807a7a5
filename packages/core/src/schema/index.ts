// Graph documents from untrusted JSON: numbered migrations + structural checks.
export { migrate, MIGRATIONS, type Migration, type MigrateResult } from './migrate.ts';
