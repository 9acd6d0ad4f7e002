/**
 * Loads and shares the session's identity (identity.ts): `GET /v1/whoami` without a token says
 * whether this server needs one (`open`, or `none`), and with the typed-in one what kind it is.
 * Pages read it with `useIdentity()`.
 */
import { createContext } from "preact";
import { useContext } from "preact/hooks";
import { api, ApiError } from "./api.ts";
import type { Identity, Whoami } from "./identity.ts";

export interface Session {
  /** Whether the server needs a token (undefined: a server too old to say). */
  tokenRequired: boolean | undefined;
  identity: Identity;
}

/** Whether the server needs a token: without one, `GET /v1/whoami` answers `open` where none is needed, `none` where one is (undefined: a server too old to have the route). */
async function needsToken(): Promise<boolean | undefined> {
  const response = await fetch("/v1/whoami", { headers: { accept: "application/json" } });
  if (!response.ok) return undefined;
  return ((await response.json()) as { kind?: string }).kind !== "open";
}

export async function loadSession(token: string | null): Promise<Session> {
  const tokenRequired = await needsToken();
  if (tokenRequired === false) return { tokenRequired, identity: { kind: "open" } };
  if (token === null) return { tokenRequired, identity: { kind: tokenRequired === true ? "no-token" : "unknown" } };
  try {
    return { tokenRequired, identity: await api<Whoami>("GET", "/v1/whoami") };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { tokenRequired, identity: { kind: "refused" } };
    if (error instanceof ApiError && error.status === 404) return { tokenRequired, identity: { kind: "unknown" } };
    throw error;
  }
}

export const SessionContext = createContext<Session>({ tokenRequired: undefined, identity: { kind: "loading" } });

export function useSession(): Session {
  return useContext(SessionContext);
}

export function useIdentity(): Identity {
  return useContext(SessionContext).identity;
}
