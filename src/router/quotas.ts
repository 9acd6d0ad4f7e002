import type { MiddlewareHandler } from "hono";
import type { Principal, Quotas } from "../auth/principal.ts";
import { TributaryError, unwrap } from "../errors.ts";
import { quotaFlushStepsMax, quotaMeterCallTimeoutMs, quotaTokensPerIsolateMax } from "../limits.ts";
import { quotaMeterStub } from "../contracts/stubs.ts";
import { hasQuotas, type QuotaKind, type Throttle } from "../quota/quota-kinds.ts";
import { TokenUsageView } from "../quota/token-usage-view.ts";
import type { RouterEnv } from "./context.ts";

/**
 * Per-token client quotas (docs/api.md, Quotas; Kafka's client quotas). Each scoped token
 * with quotas has one QuotaMeter object holding its buckets for the whole deployment; each
 * isolate keeps a TokenUsageView per token: the usage it served and has not sent yet, and
 * the meter's last answer (until when each kind is throttled).
 *
 * A request of a throttled kind is refused here, before its route runs, so a refused
 * produce writes nothing. A served request's usage (1 request, the bytes the route produced
 * or fetched) is recorded after it, as in Kafka, and sent to the meter later (waitUntil) —
 * at once past a fraction of the rate, else within the flush interval. Only the first
 * request of a token in an isolate waits, for one call, so that a token already throttled
 * elsewhere is refused here too; requests arriving while that call is out do not wait.
 *
 * Eventually consistent: an isolate learns of usage served elsewhere from its own next
 * flush's answer. So across isolates a token may exceed its rate by about what each isolate
 * serves before its next flush answers (quotaFlushRateFraction of the rate, or
 * quotaFlushIntervalMs of traffic, plus requests in flight); the debt is still counted and
 * throttles the token for its whole repayment. A meter that fails or is slow fails open.
 */
export function quotaMiddleware(): MiddlewareHandler<RouterEnv> {
  return async function quotaMiddleware(c, next) {
    const principal = c.get("principal") as Principal | undefined;
    if (principal?.kind !== "token" || !hasQuotas(principal.quotas)) return next();
    const { tokenId, quotas } = principal;
    const view = viewOf(tokenId);
    if (!view.synced && !view.inFlight(Date.now())) await flush(c.env, tokenId, view, quotas);
    refuseWhenThrottled(view, quotaKindsOf(c.req.method, c.req.path));
    await next();
    view.record({ requests: 1, produceBytes: c.get("producedBytes") ?? 0, fetchBytes: c.get("fetchedBytes") ?? 0 }, quotas);
    if (view.plan(quotas, Date.now()).action !== "none") c.executionCtx.waitUntil(followUp(c.env, tokenId, view, quotas));
  };
}

/** What a streaming read reports after its answer has started: its fetched bytes, and whether to pause. */
export interface StreamQuota {
  /** Counts bytes a stream sent as a fetch's (flushed to the meter as any request's usage). */
  record(fetchBytes: number): void;
  /** How long the token's fetch quota is throttled from now (0: not), so the stream waits before its next poll. */
  throttledMs(): number;
}

/**
 * The fetch quota of a streaming read (SSE): the middleware above counts a request when its
 * answer starts, before a stream sends anything, so the stream reports each event's bytes
 * here and, while the token is throttled, waits before it polls again (Kafka throttles a
 * fetch by delaying it). Undefined for a principal without quotas.
 */
export function streamQuota(env: Env, executionCtx: Pick<ExecutionContext, "waitUntil">, principal: Principal): StreamQuota | undefined {
  if (principal.kind !== "token" || !hasQuotas(principal.quotas)) return undefined;
  const { tokenId, quotas } = principal;
  return {
    record(fetchBytes) {
      const view = viewOf(tokenId);
      view.record({ fetchBytes }, quotas);
      if (view.plan(quotas, Date.now()).action !== "none") executionCtx.waitUntil(followUp(env, tokenId, view, quotas));
    },
    throttledMs: () => viewOf(tokenId).throttledMs(["fetchBytes"], Date.now()),
  };
}

const producePath = /^\/v1\/topics\/[^/]+\/(partitions\/[^/]+\/)?records$/;
const fetchPath = /^\/v1\/topics\/[^/]+\/partitions\/[^/]+\/records$/;
const pollPath = /^\/v1\/groups\/[^/]+\/members\/[^/]+\/poll$/;

/** The kinds a request needs: every request counts; produce routes produce bytes; fetch and poll fetch bytes. */
export function quotaKindsOf(method: string, path: string): QuotaKind[] {
  if (method === "POST" && producePath.test(path)) return ["requests", "produceBytes"];
  if ((method === "GET" && fetchPath.test(path)) || (method === "POST" && pollPath.test(path))) return ["requests", "fetchBytes"];
  return ["requests"];
}

function refuseWhenThrottled(view: TokenUsageView, kinds: readonly QuotaKind[]): void {
  const nowMs = Date.now();
  const retryAfterMs = view.throttledMs(kinds, nowMs);
  if (retryAfterMs <= 0) return;
  const exceeded = kinds.filter((kind) => view.throttledMs([kind], nowMs) > 0);
  throw new TributaryError(
    "THROTTLING_QUOTA_EXCEEDED",
    `this token's ${exceeded.join(" and ")} quota is exceeded; retry after ${retryAfterMs} ms`,
    { retryAfterMs },
  );
}

/** This isolate's views, least recently used first (a Map keeps insertion order). */
const views = new Map<string, TokenUsageView>();

function viewOf(tokenId: string): TokenUsageView {
  const view = views.get(tokenId) ?? new TokenUsageView(Date.now());
  views.delete(tokenId);
  views.set(tokenId, view);
  if (views.size > quotaTokensPerIsolateMax) views.delete(views.keys().next().value!);
  return view;
}

/** Sends the unsent usage to the token's meter and takes its answer; a failed or slow call counts as no answer. */
async function flush(env: Env, tokenId: string, view: TokenUsageView, quotas: Quotas): Promise<void> {
  const { flight, usage } = view.startFlush(Date.now());
  let answer: Throttle | undefined;
  try {
    answer = await withTimeout(quotaMeterStub(env, tokenId).charge(quotas, usage).then(unwrap), quotaMeterCallTimeoutMs);
    if (answer === undefined) console.warn(`quota meter did not answer within ${quotaMeterCallTimeoutMs} ms; its usage is forgiven`);
  } catch (error) {
    console.warn("quota meter call failed; its usage is forgiven", error);
  }
  view.finishFlush(flight, answer, Date.now());
}

/** After a request: flushes (now or at the flush interval) until no usage is left unsent, in bounded steps. */
async function followUp(env: Env, tokenId: string, view: TokenUsageView, quotas: Quotas): Promise<void> {
  for (let step = 0; step < quotaFlushStepsMax; step++) {
    const plan = view.plan(quotas, Date.now());
    if (plan.action === "none") return;
    if (plan.action === "now") {
      await flush(env, tokenId, view, quotas);
      continue;
    }
    view.scheduled(plan.atMs);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, plan.atMs - Date.now())));
    view.scheduleDone();
  }
}

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
