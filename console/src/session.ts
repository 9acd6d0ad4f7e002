/**
 * The token the console sends. Typed in once per tab and kept in `sessionStorage` (gone when
 * the tab closes, never in localStorage or a cookie); none at all against an open deployment
 * (`npm start` without TRIBUTARY_ADMIN_TOKEN).
 */
const storageKey = "tributary.console.token";

export function storedToken(): string | null {
  try {
    return sessionStorage.getItem(storageKey);
  } catch {
    return null;
  }
}

export function storeToken(token: string | null): void {
  if (token === null || token.trim() === "") sessionStorage.removeItem(storageKey);
  else sessionStorage.setItem(storageKey, token.trim());
}
