import { TributaryError } from "../errors.ts";
import type { Rule } from "../auth/acl.ts";
import type { Quotas } from "../auth/principal.ts";
import { scramCredential, scramMechanisms, type ScramMechanism } from "../auth/scram.ts";
import { importTagKey, isAdminTokenFingerprint, newScopedToken } from "../auth/token-format.ts";
import type { CreateTokenRequest } from "../auth/token-schemas.ts";
import { decodeBase64, encodeBase64 } from "../protocol/base64.ts";
import { scramIterations, scramSaltBytes, tokensMax } from "../limits.ts";
import type { ScramLookup, TokenGrant, TokenView } from "../contracts/controller-api.ts";

/** The controller's migration for scoped tokens (API.md, Tokens): secrets only as SHA-256. */
export const tokenMigration = `CREATE TABLE tokens (
   id TEXT PRIMARY KEY,
   name TEXT,
   secret_sha256 TEXT NOT NULL,
   rules TEXT NOT NULL,
   quotas TEXT NOT NULL,
   expires_at INTEGER,
   created_at INTEGER NOT NULL
 );
 CREATE TABLE token_tag_key (
   id INTEGER PRIMARY KEY CHECK (id = 1),
   raw BLOB NOT NULL
 );`;

/**
 * Its migration binding each token to the admin token it was created under (the fingerprint,
 * src/auth/token-format.ts). Rows from before it have none, and never authenticate: they may
 * have been created while no admin token was set, by anyone.
 */
export const tokenAdminBindingMigration = "ALTER TABLE tokens ADD COLUMN admin_fingerprint TEXT;";

/**
 * Its migration keeping SCRAM credentials with each token (docs/gateway.md): per mechanism the
 * salt, iteration count, StoredKey and ServerKey, as JSON; never the token. Rows from before it
 * have none: their tokens authenticate over HTTP, PLAIN and OAUTHBEARER, not SCRAM.
 */
export const tokenScramMigration = "ALTER TABLE tokens ADD COLUMN scram TEXT;";

type StoredScram = Record<ScramMechanism, { salt: string; iterations: number; storedKey: string; serverKey: string }>;

/** The SCRAM credentials of a new token, one per mechanism, each with its own salt. */
async function scramCredentials(token: string): Promise<StoredScram> {
  const stored = {} as StoredScram;
  for (const [mechanism, hash] of Object.entries(scramMechanisms) as [ScramMechanism, (typeof scramMechanisms)[ScramMechanism]][]) {
    const credential = await scramCredential(hash, token, crypto.getRandomValues(new Uint8Array(scramSaltBytes)), scramIterations);
    stored[mechanism] = {
      salt: encodeBase64(credential.salt),
      iterations: credential.iterations,
      storedKey: encodeBase64(credential.storedKey),
      serverKey: encodeBase64(credential.serverKey),
    };
  }
  return stored;
}

interface TokenRow {
  id: string;
  name: string | null;
  secret_sha256: string;
  rules: string;
  quotas: string;
  expires_at: number | null;
  admin_fingerprint: string | null;
  scram: string | null;
  [column: string]: SqlStorageValue;
}

const utf8 = new TextEncoder();

function viewOf(row: TokenRow): TokenView {
  return { id: row.id, name: row.name, rules: JSON.parse(row.rules) as Rule[], expiresAt: row.expires_at, quotas: JSON.parse(row.quotas) as Quotas };
}

/**
 * Scoped tokens in the controller's SQLite. Creating one answers its secret once; the row
 * keeps only the secret's SHA-256, compared in constant time, its SCRAM credentials (salted
 * keys, src/auth/scram.ts), and the fingerprint of the admin token it was created under: it
 * authenticates only while the router has that admin token.
 * Revoking deletes the row; routers stop accepting the token when their cache entry ends
 * (limits.ts: tokenCacheMs).
 */
export class TokenRegistry {
  readonly #sql: SqlStorage;
  #tagKey: Promise<CryptoKey> | undefined;

  constructor(sql: SqlStorage) {
    this.#sql = sql;
  }

  async create(request: CreateTokenRequest, adminFingerprint: string, now: number): Promise<TokenView & { token: string }> {
    // The router sends it from its admin token; anything else is a wiring bug, not a request's fault.
    if (!isAdminTokenFingerprint(adminFingerprint)) throw new Error("a token is created under an admin token's fingerprint");
    if (request.expiresAt !== undefined && request.expiresAt <= now) {
      throw new TributaryError("INVALID_REQUEST", "expiresAt is in the past");
    }
    this.#sql.exec("DELETE FROM tokens WHERE expires_at IS NOT NULL AND expires_at <= ?", now);
    const count = this.#sql.exec<{ count: number }>("SELECT COUNT(*) AS count FROM tokens").one().count;
    if (count >= tokensMax) throw new TributaryError("INVALID_REQUEST", `there are already ${tokensMax} tokens; revoke some first`);
    this.#tagKey ??= importTagKey(this.tagKeyBytes());
    const fresh = await newScopedToken(await this.#tagKey);
    const scram = await scramCredentials(fresh.token);
    const view: TokenView = { id: fresh.id, name: request.name ?? null, rules: request.rules, expiresAt: request.expiresAt ?? null, quotas: request.quotas ?? {} };
    this.#sql.exec(
      "INSERT INTO tokens (id, name, secret_sha256, rules, quotas, expires_at, created_at, admin_fingerprint, scram) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
      view.id,
      view.name,
      fresh.secretHash,
      JSON.stringify(view.rules),
      JSON.stringify(view.quotas),
      view.expiresAt,
      now,
      adminFingerprint,
      JSON.stringify(scram),
    );
    return { ...view, token: fresh.token };
  }

  /** The deployment's key for tokens' tags (src/auth/token-format.ts), made once, never changed. */
  tagKeyBytes(): Uint8Array {
    const row = this.#sql.exec<{ raw: ArrayBuffer }>("SELECT raw FROM token_tag_key WHERE id = 1").toArray()[0];
    if (row !== undefined) return new Uint8Array(row.raw);
    const raw = crypto.getRandomValues(new Uint8Array(32));
    this.#sql.exec("INSERT INTO token_tag_key (id, raw) VALUES (1, ?)", raw.buffer);
    return raw;
  }

  list(): TokenView[] {
    return this.#sql.exec<TokenRow>("SELECT * FROM tokens ORDER BY created_at, id").toArray().map(viewOf);
  }

  /** Deletes the token; false when there was none. */
  revoke(id: string): boolean {
    return this.#sql.exec("DELETE FROM tokens WHERE id = ?", id).rowsWritten > 0;
  }

  /**
   * The token's grant when the secret's hash matches, it was created under the admin token
   * with this fingerprint, and it has not expired; else undefined.
   */
  authenticate(id: string, secretHash: string, adminFingerprint: string, now: number): TokenGrant | undefined {
    const row = this.#row(id);
    const stored = utf8.encode(row?.secret_sha256 ?? "0".repeat(64));
    const given = utf8.encode(secretHash);
    const same = given.byteLength === stored.byteLength && crypto.subtle.timingSafeEqual(given, stored);
    if (row === undefined || !same) return undefined;
    return this.#grant(row, adminFingerprint, now);
  }

  /** The grant of a live token by id alone: for the token a write token was minted from. */
  grantOf(id: string, adminFingerprint: string, now: number): TokenGrant | undefined {
    const row = this.#row(id);
    return row === undefined ? undefined : this.#grant(row, adminFingerprint, now);
  }

  /** The token's SCRAM credential for `mechanism` and its grant, when it is live under this admin token. */
  scramCredential(id: string, mechanism: ScramMechanism, adminFingerprint: string, now: number): ScramLookup {
    const row = this.#row(id);
    const grant = row === undefined ? undefined : this.#grant(row, adminFingerprint, now);
    if (row === undefined || grant === undefined) return { kind: "unknown" };
    const stored = row.scram === null ? undefined : (JSON.parse(row.scram) as Partial<StoredScram>)[mechanism];
    if (stored === undefined) return { kind: "none" };
    const bytes = (text: string) => decodeBase64(text)!;
    const credential = { salt: bytes(stored.salt), iterations: stored.iterations, storedKey: bytes(stored.storedKey), serverKey: bytes(stored.serverKey) };
    return { kind: "credential", credential, grant };
  }

  #row(id: string): TokenRow | undefined {
    return this.#sql.exec<TokenRow>("SELECT * FROM tokens WHERE id = ?", id).toArray()[0];
  }

  #grant(row: TokenRow, adminFingerprint: string, now: number): TokenGrant | undefined {
    if (row.admin_fingerprint !== adminFingerprint) return undefined; // null (an unbound, older row) never matches
    if (row.expires_at !== null && row.expires_at <= now) return undefined;
    const view = viewOf(row);
    return { tokenId: view.id, rules: view.rules, expiresAt: view.expiresAt, quotas: view.quotas };
  }
}
