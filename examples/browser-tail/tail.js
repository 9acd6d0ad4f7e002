// Tails a Tributary topic in the browser: an EventSource on the topic's stream
// (GET /v1/topics/{topic}/records, docs/api.md "SSE on a whole topic"), authenticated with a
// short-lived read token as ?access_token= (an EventSource sends no headers). The browser
// reconnects by itself after a dropped connection, sending Last-Event-ID, so the server
// resumes every partition where it stopped: nothing is lost or shown twice.
//
// Settings come from the form, or from the page's address: ?server=…&topic=…&from=earliest
// with the token in the hash (#token=trr_…), which the browser never sends to the page's server.
"use strict";

/** Rows kept on the page: the newest ones; older rows are removed. */
const rowsMax = 1000;

const form = document.getElementById("settings");
const status = document.getElementById("status");
const tbody = document.getElementById("records");
let source;

function say(text, state = "ok") {
  status.textContent = text;
  status.dataset.state = state;
}

function cell(row, text, className) {
  const td = row.insertCell();
  td.textContent = text === null ? "(null)" : String(text);
  if (className) td.className = className;
}

function show(records) {
  for (const record of records) {
    const row = tbody.insertRow(0);
    row.dataset.partition = record.partition;
    row.dataset.offset = record.offset;
    cell(row, record.partition);
    cell(row, record.offset);
    cell(row, new Date(record.timestamp).toISOString());
    cell(row, record.key);
    cell(row, record.value, "value");
  }
  while (tbody.rows.length > rowsMax) tbody.deleteRow(-1);
}

function tail({ server, topic, token, from }) {
  source?.close();
  const url = new URL(`/v1/topics/${encodeURIComponent(topic)}/records`, server);
  url.searchParams.set("offset", from);
  url.searchParams.set("encoding", "utf8");
  if (token) url.searchParams.set("access_token", token);
  say(`Connecting to ${topic}…`);
  source = new EventSource(url);
  let count = 0;
  source.addEventListener("open", () => say(`Tailing ${topic}: ${count} records so far.`));
  source.addEventListener("records", (event) => {
    const { records } = JSON.parse(event.data);
    count += records.length;
    show(records);
    say(`Tailing ${topic}: ${count} records so far.`);
  });
  // Both the server's `event: error` (a MessageEvent with data: the stream is over) and a lost
  // connection (a plain Event: the browser reconnects unless the server refused the request).
  source.addEventListener("error", (event) => {
    if (event.data) {
      const { error } = JSON.parse(event.data);
      source.close();
      return say(`The stream ended: ${error.code}: ${error.message}`, "error");
    }
    if (source.readyState === EventSource.CLOSED) {
      return say("The server refused the stream (a wrong token or topic? CORS_ORIGINS without this page's origin?).", "error");
    }
    say("Connection lost; reconnecting where it stopped…");
  });
}

function settingsFromAddress() {
  const query = new URLSearchParams(location.search);
  const hash = new URLSearchParams(location.hash.slice(1));
  return { server: query.get("server"), topic: query.get("topic"), from: query.get("from"), token: hash.get("token") };
}

const initial = settingsFromAddress();
for (const name of ["server", "topic", "from", "token"]) if (initial[name]) form.elements[name].value = initial[name];
form.addEventListener("submit", (event) => {
  event.preventDefault();
  tail({ server: form.elements.server.value, topic: form.elements.topic.value, token: form.elements.token.value, from: form.elements.from.value });
});
if (initial.server && initial.topic) form.requestSubmit();
