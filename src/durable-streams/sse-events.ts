/**
 * The protocol's SSE events (its section 5.7): `data` events with the bytes read, each
 * followed by a `control` event with the next offset and the cursor. Text is sent line by
 * line (`data:` per line, so an embedded CR or LF can never end an event or start a forged
 * one); JSON as the read's array; any other content type base64-encoded (announced by the
 * `Stream-SSE-Data-Encoding: base64` response header).
 */

export interface ControlEvent {
  streamNextOffset: string;
  streamCursor?: string;
  upToDate?: true;
  streamClosed?: true;
}

/** One `data` event of text: every line of it a `data:` line. */
export function dataEvent(text: string): string {
  const lines = text.split(/\r\n|\r|\n/);
  return `event: data\n${lines.map((line) => `data:${line}`).join("\n")}\n\n`;
}

export function controlEvent(control: ControlEvent): string {
  return `event: control\ndata:${JSON.stringify(control)}\n\n`;
}

export function base64Of(bytes: Uint8Array): string {
  let binary = "";
  for (let at = 0; at < bytes.length; at += 0x8000) binary += String.fromCharCode(...bytes.subarray(at, at + 0x8000));
  return btoa(binary);
}
