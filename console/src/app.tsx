/** The console's shell: navigation, the token field, and the page the URL's hash names. */
import { useEffect, useState } from "preact/hooks";
import { PageHeading } from "./components/common.tsx";
import { ApiReferencePage } from "./pages/api-reference.tsx";
import { ClusterPage } from "./pages/cluster.tsx";
import { GroupPage, GroupsPage } from "./pages/groups.tsx";
import { MessagesPage } from "./pages/messages.tsx";
import { TokensPage } from "./pages/tokens.tsx";
import { TopicPage } from "./pages/topic.tsx";
import { TopicsPage } from "./pages/topics.tsx";
import { parseRoute, routeHref, type Route } from "./routes.ts";
import { storedToken, storeToken } from "./session.ts";

const navigation: { label: string; route: Exclude<Route, { page: "not-found" }>; pages: Route["page"][] }[] = [
  { label: "Topics", route: { page: "topics" }, pages: ["topics", "topic", "messages"] },
  { label: "Consumer groups", route: { page: "groups" }, pages: ["groups", "group"] },
  { label: "Tokens", route: { page: "tokens" }, pages: ["tokens"] },
  { label: "Cluster", route: { page: "cluster" }, pages: ["cluster"] },
  { label: "API reference", route: { page: "api" }, pages: ["api"] },
];

export function App() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  const [token, setToken] = useState(storedToken());
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  const pageKey = `${JSON.stringify(route)}|${token ?? ""}`;
  return (
    <>
      <a class="skip" href="#main" onClick={(event) => { event.preventDefault(); document.getElementById("main")?.focus(); }}>Skip to content</a>
      <header>
        <span class="brand">Tributary</span>
        <nav aria-label="Console">
          <ul>
            {navigation.map((item) => (
              <li key={item.label}><a href={routeHref(item.route)} aria-current={item.pages.includes(route.page) ? "page" : undefined}>{item.label}</a></li>
            ))}
          </ul>
        </nav>
        <TokenField token={token} onChange={(next) => { storeToken(next); setToken(storedToken()); }} />
      </header>
      <main id="main" tabIndex={-1} key={pageKey}>
        <Page route={route} />
      </main>
    </>
  );
}

function Page(props: { route: Route }) {
  const { route } = props;
  switch (route.page) {
    case "topics": return <TopicsPage />;
    case "topic": return <TopicPage topic={route.topic} />;
    case "messages": return <MessagesPage topic={route.topic} />;
    case "groups": return <GroupsPage />;
    case "group": return <GroupPage group={route.group} />;
    case "tokens": return <TokensPage />;
    case "cluster": return <ClusterPage />;
    case "api": return <ApiReferencePage />;
    case "not-found": return <section><PageHeading>No such page</PageHeading><p><a href={routeHref({ page: "topics" })}>Back to the topics</a></p></section>;
  }
}

/** The token, typed in once per tab (sessionStorage), sent as Authorization on every call. */
function TokenField(props: { token: string | null; onChange: (token: string | null) => void }) {
  if (props.token !== null) {
    return (
      <div class="token">
        <span>Token <code>{props.token.slice(0, 8)}…</code></span>{" "}
        <button type="button" onClick={() => props.onChange(null)}>Forget token</button>
      </div>
    );
  }
  return (
    <form class="token" aria-label="Authentication" onSubmit={(event) => { event.preventDefault(); props.onChange(String(new FormData(event.currentTarget as HTMLFormElement).get("token") ?? "")); }}>
      <label>Token <input name="token" type="password" autoComplete="off" placeholder="none: open local mode" /></label>{" "}
      <button type="submit">Use token</button>
    </form>
  );
}
