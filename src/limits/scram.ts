/**
 * Bounds of SCRAM (Kafka's SCRAM-SHA-256/512 through the gateway; src/auth/scram.ts,
 * src/auth/scram-exchange.ts, docs/gateway.md): the credentials kept with each scoped token,
 * the messages and nonces the deployment reads, the exchange between its two steps, the session
 * token it answers.
 *
 * Each bound is named with its unit last and says why it has its value; src/limits.ts, the
 * index, re-exports every one.
 */

/**
 * PBKDF2 iterations of the SCRAM credentials kept with each scoped token. Iterations slow down
 * guessing a password from a stolen StoredKey; a token's secret is 192 random bits, which no
 * guessing reaches, so more would buy nothing and cost every client one PBKDF2 of that many
 * rounds per connection. 4,096 is RFC 7677's floor and the least Kafka's Java client and
 * franz-go accept from a server.
 */
export const scramIterations = 4_096;

/** Bytes of a SCRAM credential's random salt: it only has to differ between credentials (RFC 7677's example has 16). */
export const scramSaltBytes = 16;

/** Random bytes of the server's part of a SCRAM nonce (base64: 32 characters): unguessable, as a token's secret. */
export const scramServerNonceBytes = 24;

/**
 * Characters of a client's SCRAM nonce. Clients send 20 to 44; the bound keeps the messages,
 * and the signed exchange that carries them from one step to the next, small.
 */
export const scramClientNonceLengthMax = 256;

/**
 * Characters of a client-first or client-final message the deployment reads: a username, two
 * nonces, a proof of at most 88 base64 characters and perhaps an extension are well under it.
 */
export const scramMessageLengthMax = 1_024;

/**
 * How long a SCRAM exchange's first answer (server-first and the signed exchange) stays good
 * for the final step. A client answers at once, after one PBKDF2; a minute allows a busy
 * machine and bounds how long a relayed exchange can be completed.
 */
export const scramExchangeTtlMs = 60_000;

/**
 * Lifetime of the session token a SCRAM exchange answers (the credential a gateway uses for
 * that connection; docs/api.md): default, least and largest. The gateway tells the client this
 * lifetime (SaslAuthenticate's sessionLifetimeMs) and the client re-authenticates before it ends
 * (KIP-368) or is disconnected and connects again. An hour bounds what a session token taken
 * from a gateway's memory is worth; revoking the scoped token voids its session tokens within
 * tokenCacheMs anyway. Below a second a client would spend its connection re-authenticating.
 */
export const scramSessionTtlMsDefault = 60 * 60 * 1000;
export const scramSessionTtlMsMin = 1_000;
export const scramSessionTtlMsMax = 24 * 60 * 60 * 1000;
