import { knownRegions } from "../topics/placement.ts";

/** The request header a client may set to name its region (a Worker calling from a known place, or tests). */
export const clientRegionHeader = "Tributary-Region";

/**
 * The region a request comes from, for nearest-replica reads (KIP-392): the header when it
 * names a known region, else the continent (and longitude) Cloudflare reports in
 * `request.cf`. Undefined when neither says (local development).
 */
export function clientRegion(request: Request): string | undefined {
  const named = request.headers.get(clientRegionHeader)?.trim();
  if (named && (knownRegions as readonly string[]).includes(named)) return named;
  const cf = (request as { cf?: { continent?: string; longitude?: string } }).cf;
  const longitude = Number(cf?.longitude ?? "NaN");
  switch (cf?.continent) {
    case "NA":
      return longitude < -100 ? "wnam" : "enam";
    case "SA":
      return "sam";
    case "EU":
      return longitude > 20 ? "eeur" : "weur";
    case "AS":
      return longitude < 60 ? "me" : "apac";
    case "OC":
      return "oc";
    case "AF":
      return "afr";
    default:
      return undefined;
  }
}
