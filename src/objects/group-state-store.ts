import type { GroupState } from "../group/index.ts";
import type { IndexSummary } from "./group-index-sync.ts";

/**
 * A coordinator's one state row: the group's name, its `ConsumerGroup.toState()` as JSON
 * (null while the group does not exist) and what the controller's index last acknowledged
 * (null when it does not list the group). The row goes once both are null.
 */
export const groupStateMigration = `CREATE TABLE group_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL,
  state TEXT,
  indexed TEXT
)`;

export interface StoredGroup {
  name: string;
  state: GroupState | null;
  indexed: IndexSummary | null;
}

export class GroupStateStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  load(): StoredGroup | undefined {
    const row = this.#sql
      .exec<{ name: string; state: string | null; indexed: string | null }>("SELECT name, state, indexed FROM group_state WHERE id = 1")
      .toArray()[0];
    if (!row) return undefined;
    return {
      name: row.name,
      state: row.state === null ? null : (JSON.parse(row.state) as GroupState),
      indexed: row.indexed === null ? null : (JSON.parse(row.indexed) as IndexSummary),
    };
  }

  save(stored: StoredGroup): void {
    if (stored.state === null && stored.indexed === null) {
      this.#sql.exec("DELETE FROM group_state");
      return;
    }
    this.#sql.exec(
      `INSERT INTO group_state (id, name, state, indexed) VALUES (1, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state, indexed = excluded.indexed`,
      stored.name,
      stored.state === null ? null : JSON.stringify(stored.state),
      stored.indexed === null ? null : JSON.stringify(stored.indexed),
    );
  }
}
