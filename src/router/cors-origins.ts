/** CORS_ORIGINS: "*" (the default) or a comma-separated list of allowed origins (/v1 and /ds alike). */
export function corsOrigin(origin: string, configured: string | undefined): string | null {
  const allowed = (configured ?? "*").split(",").map((entry) => entry.trim());
  if (allowed.includes("*")) return "*";
  return allowed.includes(origin) ? origin : null;
}
