/** API.md's answers as the fake server builds them: JSON bodies and error bodies (Retry-After on 429 and 503). */
export const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(body === undefined ? null : JSON.stringify(body), { status, headers: { "content-type": "application/json", ...headers } });

export const apiError = (status: number, code: string, message: string, data: Record<string, unknown> = {}) =>
  json(status, { error: { ...data, code, message } }, status === 503 || status === 429 ? { "retry-after": "1" } : {});
