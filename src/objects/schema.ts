/**
 * Numbered schema migrations for an object's SQLite database, applied in the object's
 * constructor under `blockConcurrencyWhile` and skipped when current (as cloudflare/agents'
 * `_ensureSchema`). Migration N is `migrations[N - 1]`; never edit a released one, append.
 */
export function applyMigrations(sql: SqlStorage, migrations: readonly string[]): void {
  sql.exec("CREATE TABLE IF NOT EXISTS _schema (id INTEGER PRIMARY KEY CHECK (id = 1), version INTEGER NOT NULL)");
  const row = sql.exec<{ version: number }>("SELECT version FROM _schema WHERE id = 1").toArray()[0];
  const current = row?.version ?? 0;
  for (let version = current + 1; version <= migrations.length; version++) {
    sql.exec(migrations[version - 1]!);
  }
  if (migrations.length > current) {
    sql.exec(
      "INSERT INTO _schema (id, version) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET version = excluded.version",
      migrations.length,
    );
  }
}
