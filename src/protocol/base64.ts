/**
 * Standard base64 (RFC 4648 §4, padded), strict: API.md carries binary keys and values this
 * way. Uses atob/btoa, which Workers, Node and browsers all have.
 */
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Decodes standard base64, or returns undefined when the text is not valid base64. */
export function decodeBase64(text: string): Uint8Array | undefined {
  if (!base64Pattern.test(text)) return undefined;
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let index = 0; index < binary.length; index++) bytes[index] = binary.charCodeAt(index);
  return bytes;
}

const chunkBytes = 0x8000;

export function encodeBase64(bytes: Uint8Array): string {
  let binary = "";
  for (let start = 0; start < bytes.length; start += chunkBytes) {
    binary += String.fromCharCode(...bytes.subarray(start, start + chunkBytes));
  }
  return btoa(binary);
}
