import type { ClassicGroupState, GroupState } from "../group/index.ts";
import type { IndexSummary } from "./group-index-sync.ts";

/**
 * A coordinator's one state row: the group's name, its state as JSON (null while the group
 * does not exist) and what the controller's index last acknowledged (null when it does not
 * list the group). The row goes once both are null. The state is the server-assigned group's
 * (`state`, GroupMembership's `server`) and, since migration 3, the classic group's (`classic`;
 * null in rows written before, whose groups had none).
 */
export const groupStateMigration = `CREATE TABLE group_state (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  name TEXT NOT NULL,
  state TEXT,
  indexed TEXT
)`;

/** Migration 3 (issue 35): the state of a group on Kafka's classic path (src/group/classic-group.ts). */
export const groupClassicStateMigration = `ALTER TABLE group_state ADD COLUMN classic TEXT`;

export interface StoredGroup {
  name: string;
  /** null while the group does not exist. */
  state: { server: GroupState; classic: ClassicGroupState | null } | null;
  indexed: IndexSummary | null;
}

export class GroupStateStore {
  readonly #sql: SqlStorage;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  load(): StoredGroup | undefined {
    const row = this.#sql
      .exec<{ name: string; state: string | null; classic: string | null; indexed: string | null }>("SELECT name, state, classic, indexed FROM group_state WHERE id = 1")
      .toArray()[0];
    if (!row) return undefined;
    const server = row.state === null ? null : (JSON.parse(row.state) as GroupState);
    return {
      name: row.name,
      state: server === null ? null : { server, classic: row.classic === null ? null : (JSON.parse(row.classic) as ClassicGroupState) },
      indexed: row.indexed === null ? null : (JSON.parse(row.indexed) as IndexSummary),
    };
  }

  save(stored: StoredGroup): void {
    if (stored.state === null && stored.indexed === null) {
      this.#sql.exec("DELETE FROM group_state");
      return;
    }
    this.#sql.exec(
      `INSERT INTO group_state (id, name, state, classic, indexed) VALUES (1, ?, ?, ?, ?)
       ON CONFLICT (id) DO UPDATE SET name = excluded.name, state = excluded.state, classic = excluded.classic, indexed = excluded.indexed`,
      stored.name,
      stored.state === null ? null : JSON.stringify(stored.state.server),
      stored.state?.classic == null ? null : JSON.stringify(stored.state.classic),
      stored.indexed === null ? null : JSON.stringify(stored.indexed),
    );
  }
}
