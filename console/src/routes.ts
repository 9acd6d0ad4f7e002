/**
 * The console's pages, addressed by the URL's hash (`#/topics/orders`), so every page is the
 * one `index.html` the Worker's static assets serve at `/` and `/v1` stays the API's alone.
 */
export type Route =
  | { page: "topics" }
  | { page: "topic"; topic: string }
  | { page: "messages"; topic: string }
  | { page: "groups" }
  | { page: "group"; group: string }
  | { page: "share-groups" }
  | { page: "share-group"; group: string }
  | { page: "subscriptions" }
  | { page: "subscription"; name: string }
  | { page: "schemas" }
  | { page: "schema-subject"; subject: string }
  | { page: "tokens" }
  | { page: "cluster" }
  | { page: "api" }
  | { page: "not-found"; hash: string };

export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, "").split("/").filter((part) => part !== "").map(decodeSegment);
  const [first, second, third] = parts;
  if (first === undefined) return { page: "topics" };
  if (first === "topics" && parts.length === 1) return { page: "topics" };
  if (first === "topics" && second !== undefined && parts.length === 2) return { page: "topic", topic: second };
  if (first === "topics" && second !== undefined && third === "messages" && parts.length === 3) return { page: "messages", topic: second };
  if (first === "groups" && parts.length === 1) return { page: "groups" };
  if (first === "groups" && second !== undefined && parts.length === 2) return { page: "group", group: second };
  if (first === "share-groups" && parts.length === 1) return { page: "share-groups" };
  if (first === "share-groups" && second !== undefined && parts.length === 2) return { page: "share-group", group: second };
  if (first === "subscriptions" && parts.length === 1) return { page: "subscriptions" };
  if (first === "subscriptions" && second !== undefined && parts.length === 2) return { page: "subscription", name: second };
  if (first === "schemas" && parts.length === 1) return { page: "schemas" };
  if (first === "schemas" && second !== undefined && parts.length === 2) return { page: "schema-subject", subject: second };
  if ((first === "tokens" || first === "cluster" || first === "api") && parts.length === 1) return { page: first };
  return { page: "not-found", hash };
}

export function routeHref(route: Exclude<Route, { page: "not-found" }>): string {
  switch (route.page) {
    case "topic":
      return `#/topics/${encodeURIComponent(route.topic)}`;
    case "messages":
      return `#/topics/${encodeURIComponent(route.topic)}/messages`;
    case "group":
      return `#/groups/${encodeURIComponent(route.group)}`;
    case "share-group":
      return `#/share-groups/${encodeURIComponent(route.group)}`;
    case "subscription":
      return `#/subscriptions/${encodeURIComponent(route.name)}`;
    case "schema-subject":
      return `#/schemas/${encodeURIComponent(route.subject)}`;
    default:
      return `#/${route.page}`;
  }
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
