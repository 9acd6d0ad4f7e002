import { it, expect } from "vitest";
import { api, createTopic, produce, readAll, uniqueTopic } from "../support/http.ts";
it("probe", async () => {
  const t = uniqueTopic("p");
  await createTopic(t);
  const r = await api("POST", `/v1/topics/${t}/records`, '{"records":[{"value":"v","headers":{"__proto__":"x","a":"b"}}]}');
  console.log("produce", r.status, r.text);
  console.log("read", JSON.stringify(await readAll(t, 0)));
  const c = await api("POST", `/v1/topics`, `{"name":"${t}-c","configs":{"__proto__":"x"}}`);
  console.log("create", c.status, c.text.slice(0, 300));
  const m = await api("POST", `/v1/topics`, { name: `${t}-m`, configs: { "min.insync.replicas": "2" } });
  const p = await api("POST", `/v1/topics/${t}-m/records`, { records: [{ value: "v" }], acks: "all" });
  console.log("minisr", p.status, p.text);
  const big = await api("POST", `/v1/topics/${t}/records`, { records: [{ value: "v", timestamp: 2 ** 60 }] });
  console.log("bigts", big.status, big.text);
  const h = await api("POST", `/v1/topics/${t}/records`, { records: [{ value: "v", headers: { "": "empty key" } }] });
  console.log("emptyheaderkey", h.status, h.text);
});
