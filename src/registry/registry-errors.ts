/**
 * Confluent Schema Registry's errors (docs/schema-registry.md): its HTTP status and its own
 * `error_code`, answered as `{"error_code", "message"}`. Serializers in every language read
 * these codes (a 40403 from a lookup means "register it"), so the registry keeps Confluent's
 * table rather than Tributary's (src/errors.ts), as the Durable Streams protocol keeps its own
 * statuses. Pure: thrown by the registry's rules, carried over RPC as a value.
 */
export const registryErrorTable = {
  UNAUTHORIZED: { status: 401, errorCode: 40101 },
  FORBIDDEN: { status: 403, errorCode: 40301 },
  SUBJECT_NOT_FOUND: { status: 404, errorCode: 40401 },
  VERSION_NOT_FOUND: { status: 404, errorCode: 40402 },
  SCHEMA_NOT_FOUND: { status: 404, errorCode: 40403 },
  SUBJECT_SOFT_DELETED: { status: 404, errorCode: 40404 },
  SUBJECT_NOT_SOFT_DELETED: { status: 404, errorCode: 40405 },
  VERSION_SOFT_DELETED: { status: 404, errorCode: 40406 },
  VERSION_NOT_SOFT_DELETED: { status: 404, errorCode: 40407 },
  SUBJECT_COMPATIBILITY_NOT_CONFIGURED: { status: 404, errorCode: 40408 },
  SUBJECT_MODE_NOT_CONFIGURED: { status: 404, errorCode: 40409 },
  NOT_FOUND: { status: 404, errorCode: 404 },
  METHOD_NOT_ALLOWED: { status: 405, errorCode: 405 },
  INCOMPATIBLE_SCHEMA: { status: 409, errorCode: 409 },
  INVALID_SCHEMA: { status: 422, errorCode: 42201 },
  INVALID_VERSION: { status: 422, errorCode: 42202 },
  INVALID_COMPATIBILITY_LEVEL: { status: 422, errorCode: 42203 },
  INVALID_MODE: { status: 422, errorCode: 42204 },
  OPERATION_NOT_PERMITTED: { status: 422, errorCode: 42205 },
  REFERENCE_EXISTS: { status: 422, errorCode: 42206 },
  /** A request body that is not the shape the route takes (Confluent answers 422 with the HTTP status as its code). */
  UNPROCESSABLE: { status: 422, errorCode: 422 },
  /** A bound of src/limits.ts: the registry's own, beyond Confluent's table; 422 as any refused input. */
  LIMIT_EXCEEDED: { status: 422, errorCode: 42207 },
  QUOTA_EXCEEDED: { status: 429, errorCode: 42901 },
  STORE_ERROR: { status: 500, errorCode: 50001 },
  UNAVAILABLE: { status: 503, errorCode: 50003 },
} as const;

export type RegistryErrorName = keyof typeof registryErrorTable;

export interface RegistryErrorValue {
  name: RegistryErrorName;
  message: string;
}

export class RegistryError extends Error {
  readonly code: RegistryErrorName;

  constructor(code: RegistryErrorName, message: string) {
    super(message);
    this.name = "RegistryError";
    this.code = code;
  }

  get status(): number {
    return registryErrorTable[this.code].status;
  }

  get errorCode(): number {
    return registryErrorTable[this.code].errorCode;
  }

  toValue(): RegistryErrorValue {
    return { name: this.code, message: this.message };
  }

  static fromValue(value: RegistryErrorValue): RegistryError {
    return new RegistryError(value.name, value.message);
  }
}

/** An answer over RPC: a thrown error's own fields do not survive it, so errors travel as values. */
export type RegistryResult<T> = { ok: true; value: T } | { ok: false; error: RegistryErrorValue };

export function toRegistryResult<T>(body: () => T): RegistryResult<T> {
  try {
    return { ok: true, value: body() };
  } catch (error) {
    if (error instanceof RegistryError) return { ok: false, error: error.toValue() };
    throw error;
  }
}

export function unwrapRegistry<T>(result: RegistryResult<T>): T {
  if (result.ok) return result.value;
  throw RegistryError.fromValue(result.error);
}
