/** The console's shell: navigation, the token field, and the page the URL's hash names. */
import { useEffect, useState } from "preact/hooks";
import { PageHeading, useLoad } from "./components/common.tsx";
import { useNarrowTableLabels } from "./components/narrow-tables.ts";
import { describeIdentity, tokenPlaceholder } from "./identity.ts";
import { ApiReferencePage } from "./pages/api-reference.tsx";
import { ClusterPage } from "./pages/cluster.tsx";
import { GroupPage, GroupsPage } from "./pages/groups.tsx";
import { MessagesPage } from "./pages/messages.tsx";
import { SchemaSubjectPage, SchemasPage } from "./pages/schemas.tsx";
import { ShareGroupPage, ShareGroupsPage } from "./pages/share-groups.tsx";
import { SubscriptionPage, SubscriptionsPage } from "./pages/subscriptions.tsx";
import { TokensPage } from "./pages/tokens.tsx";
import { TopicPage } from "./pages/topic.tsx";
import { TopicsPage } from "./pages/topics.tsx";
import { parseRoute, routeHref, type Route } from "./routes.ts";
import { storedToken, storeToken } from "./session.ts";
import { loadSession, SessionContext, type Session } from "./session-identity.tsx";

const navigation: { label: string; route: Exclude<Route, { page: "not-found" }>; pages: Route["page"][] }[] = [
  { label: "Topics", route: { page: "topics" }, pages: ["topics", "topic", "messages"] },
  { label: "Consumer groups", route: { page: "groups" }, pages: ["groups", "group"] },
  { label: "Share groups", route: { page: "share-groups" }, pages: ["share-groups", "share-group"] },
  { label: "Subscriptions", route: { page: "subscriptions" }, pages: ["subscriptions", "subscription"] },
  { label: "Schemas", route: { page: "schemas" }, pages: ["schemas", "schema-subject"] },
  { label: "Tokens", route: { page: "tokens" }, pages: ["tokens"] },
  { label: "Cluster", route: { page: "cluster" }, pages: ["cluster"] },
  { label: "API reference", route: { page: "api" }, pages: ["api"] },
];

export function App() {
  const [route, setRoute] = useState(() => parseRoute(location.hash));
  const [token, setToken] = useState(storedToken());
  useNarrowTableLabels();
  useEffect(() => {
    const changed = () => setRoute(parseRoute(location.hash));
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  const loaded = useLoad(() => loadSession(token), `session|${token ?? ""}`);
  // Until the server has answered, nothing is offered that it might refuse; a server that cannot say is trusted to decide.
  const session: Session = loaded.data ?? { tokenRequired: undefined, identity: { kind: loaded.error === undefined ? "loading" : "unknown" } };
  const pageKey = `${JSON.stringify(route)}|${token ?? ""}`;
  return (
    <SessionContext.Provider value={session}>
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
        <TokenField token={token} session={session} onChange={(next) => { storeToken(next); setToken(storedToken()); }} />
      </header>
      <main id="main" tabIndex={-1} key={pageKey}>
        <Page route={route} />
      </main>
    </SessionContext.Provider>
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
    case "share-groups": return <ShareGroupsPage />;
    case "share-group": return <ShareGroupPage group={route.group} />;
    case "subscriptions": return <SubscriptionsPage />;
    case "subscription": return <SubscriptionPage name={route.name} />;
    case "schemas": return <SchemasPage />;
    case "schema-subject": return <SchemaSubjectPage subject={route.subject} />;
    case "tokens": return <TokensPage />;
    case "cluster": return <ClusterPage />;
    case "api": return <ApiReferencePage />;
    case "not-found": return <section><PageHeading>No such page</PageHeading><p><a href={routeHref({ page: "topics" })}>Back to the topics</a></p></section>;
  }
}

/**
 * The token, typed in once per tab (sessionStorage), sent as Authorization on every call.
 * Shown by its kind (admin, scoped and its id, write or read and its topic), never by any of
 * its characters: a token's first characters are the admin token's whole, or close to it.
 */
function TokenField(props: { token: string | null; session: Session; onChange: (token: string | null) => void }) {
  const { identity, tokenRequired } = props.session;
  if (props.token !== null) {
    return (
      <div class="token">
        <span data-testid="token-kind" class={identity.kind === "refused" ? "error" : undefined}>{describeIdentity(identity)}</span>{" "}
        <button type="button" onClick={() => props.onChange(null)}>Forget token</button>
      </div>
    );
  }
  if (tokenRequired === false) return <div class="token"><span data-testid="token-kind">{describeIdentity(identity)}</span></div>;
  return (
    <form class="token" aria-label="Authentication" onSubmit={(event) => { event.preventDefault(); props.onChange(String(new FormData(event.currentTarget as HTMLFormElement).get("token") ?? "")); }}>
      <label>Token <input name="token" type="password" autoComplete="off" placeholder={tokenPlaceholder(tokenRequired)} /></label>{" "}
      <button type="submit">Use token</button>
    </form>
  );
}
