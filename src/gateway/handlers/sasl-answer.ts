/** SaslAuthenticate's answer, shared by the mechanisms (sasl.ts, sasl-scram.ts). */
export interface SaslAuthenticateAnswer {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Uint8Array;
  /** v1+: when the client must authenticate again (KIP-368); 0 for never. */
  sessionLifetimeMs: bigint;
}

export function saslAnswer(errorCode: number, errorMessage: string | null, authBytes: Uint8Array = new Uint8Array(0), sessionLifetimeMs = 0): SaslAuthenticateAnswer {
  return { errorCode, errorMessage, authBytes, sessionLifetimeMs: BigInt(Math.max(0, Math.floor(sessionLifetimeMs))) };
}
