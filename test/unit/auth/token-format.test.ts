import { describe, expect, it } from "vitest";
import { adminTokenFingerprint, importTagKey, isAdminTokenFingerprint, isReadToken, isTokenId, isWriteToken, newScopedToken, parseScopedToken, sha256Hex, signReadToken, signWriteToken, verifyReadToken, verifyWriteToken } from "../../../src/auth/token-format.ts";

const tagKey = await importTagKey(new Uint8Array(32).fill(7));
const otherKey = await importTagKey(new Uint8Array(32).fill(8));

describe("admin token fingerprints (what scoped tokens are bound to)", () => {
  it("are a domain-separated SHA-256: stable per admin token, different across them, never the token itself", async () => {
    const first = await adminTokenFingerprint("admin-one");
    expect(isAdminTokenFingerprint(first)).toBe(true);
    expect(await adminTokenFingerprint("admin-two")).not.toBe(first);
    expect(await adminTokenFingerprint("admin-one")).toBe(first);
    expect(first).not.toBe(await sha256Hex("admin-one"));
    expect(isAdminTokenFingerprint("admin-one")).toBe(false);
    expect(isAdminTokenFingerprint(first.toUpperCase())).toBe(false);
  });
});

describe("scoped tokens", () => {
  it("carry an id and a secret whose SHA-256 is what the controller stores", async () => {
    const fresh = await newScopedToken(tagKey);
    expect(fresh.token).toMatch(/^trb_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(isTokenId(fresh.id)).toBe(true);
    const parsed = await parseScopedToken(fresh.token, tagKey);
    expect(parsed).toEqual({ id: fresh.id, secretHash: fresh.secretHash });
    expect(fresh.secretHash).toBe(await sha256Hex(fresh.token.slice(21)));
    expect(fresh.secretHash).not.toContain(fresh.token.slice(21));
  });

  it("are refused without a controller call when their tag is wrong: made up, altered, or from another deployment", async () => {
    const fresh = await newScopedToken(tagKey);
    expect(await parseScopedToken(fresh.token, otherKey)).toBeUndefined();
    const secret = fresh.token.slice(21);
    for (let index = 0; index < secret.length; index++) {
      const changed = secret[index] === "A" ? "B" : "A";
      const altered = `${fresh.token.slice(0, 21 + index)}${changed}${fresh.token.slice(22 + index)}`;
      expect(await parseScopedToken(altered, tagKey), `changed at ${index}`).toBeUndefined();
    }
    const otherId = `trb_${"0".repeat(16)}_${secret}`;
    expect(await parseScopedToken(otherId, tagKey)).toBeUndefined();
  });

  it("are different every time", async () => {
    const tokens = await Promise.all(Array.from({ length: 20 }, () => newScopedToken(tagKey)));
    expect(new Set(tokens.map((token) => token.token)).size).toBe(20);
    expect(new Set(tokens.map((token) => token.id)).size).toBe(20);
  });

  it.each([
    ["another scheme", "abc"],
    ["no secret", "trb_0123456789abcdef_"],
    ["a short id", "trb_0123_" + "A".repeat(43)],
    ["an upper-case id", "trb_0123456789ABCDEF_" + "A".repeat(43)],
    ["a short secret", "trb_0123456789abcdef_" + "A".repeat(42)],
    ["a long secret", "trb_0123456789abcdef_" + "A".repeat(44)],
    ["a wrong separator", "trb_0123456789abcdef-" + "A".repeat(43)],
    ["a secret with other characters", "trb_0123456789abcdef_" + "+".repeat(43)],
  ])("refuses %s", async (_what, token) => {
    expect(await parseScopedToken(token, tagKey)).toBeUndefined();
  });
});

describe("write tokens", () => {
  const claims = { parent: "0123456789abcdef", topic: "clicks", expiresAt: 1_800_000_000_000 };

  it("verify with the key they were signed with and say what they were minted for", async () => {
    const token = await signWriteToken(claims, "admin-key");
    expect(isWriteToken(token)).toBe(true);
    expect(await verifyWriteToken(token, "admin-key")).toEqual(claims);
  });

  it("keep unicode topic names intact", async () => {
    const unicode = { ...claims, topic: "clicks.ünï-✓" };
    expect(await verifyWriteToken(await signWriteToken(unicode, "k"), "k")).toEqual(unicode);
  });

  it("do not verify with another key (a rotated admin token voids them)", async () => {
    expect(await verifyWriteToken(await signWriteToken(claims, "admin-key"), "admin-key2")).toBeUndefined();
  });

  it("do not verify when any character is changed", async () => {
    const token = await signWriteToken(claims, "k");
    for (let index = 4; index < token.length; index += 3) {
      const replacement = token[index] === "A" ? "B" : "A";
      const tampered = token.slice(0, index) + replacement + token.slice(index + 1);
      expect(await verifyWriteToken(tampered, "k"), `changed at ${index}`).toBeUndefined();
    }
  });

  it("refuse a payload signed for another topic grafted onto a signature", async () => {
    const one = await signWriteToken(claims, "k");
    const other = await signWriteToken({ ...claims, topic: "payments" }, "k");
    const grafted = `${other.split(".")[0]}.${one.split(".")[1]}`;
    expect(await verifyWriteToken(grafted, "k")).toBeUndefined();
  });

  it.each(["trw_", "trw_.", "trw_a.b.c", "trw_!!.??", "trb_x"])("refuse %s", async (token) => {
    expect(await verifyWriteToken(token, "k")).toBeUndefined();
  });
});

describe("read tokens", () => {
  const claims = { parent: "admin", topic: "clicks", expiresAt: 1_800_000_000_000 };

  it("verify with the key they were signed with, and only as read tokens", async () => {
    const token = await signReadToken(claims, "k");
    expect(isReadToken(token)).toBe(true);
    expect(isWriteToken(token)).toBe(false);
    expect(await verifyReadToken(token, "k")).toEqual(claims);
    expect(await verifyReadToken(token, "k2")).toBeUndefined();
    expect(await verifyWriteToken(token, "k")).toBeUndefined();
  });

  it("are signed with a key of their own: neither kind passes for the other under the other's prefix", async () => {
    const read = await signReadToken(claims, "k");
    const write = await signWriteToken(claims, "k");
    expect(read.slice(4)).not.toBe(write.slice(4));
    expect(await verifyWriteToken(`trw_${read.slice(4)}`, "k")).toBeUndefined();
    expect(await verifyReadToken(`trr_${write.slice(4)}`, "k")).toBeUndefined();
  });
});
