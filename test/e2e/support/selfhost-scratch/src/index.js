// A user's Worker: it produces one record per request to Tributary over a service binding
// (Tributary's TributaryService entrypoint, docs/testing.md).
export default {
  async fetch(request, env) {
    const result = await env.TRIBUTARY.produce("clicks", { records: [{ value: new URL(request.url).pathname }] });
    return Response.json(result, { status: result.ok ? 200 : 502 });
  },
};
