/** Plain text tables for a terminal: a header row, columns padded to their widest cell. */
export function renderTable(headers: string[], rows: (string | number | null | undefined)[][]): string {
  const cells = rows.map((row) => row.map((cell) => (cell === null || cell === undefined ? "-" : String(cell))));
  const widths = headers.map((header, column) => Math.max(header.length, ...cells.map((row) => row[column]?.length ?? 0)));
  const line = (row: string[]) =>
    row
      .map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!)))
      .join("  ")
      .trimEnd();
  return [line(headers), ...cells.map(line)].join("\n") + "\n";
}

/** 1234567 → "1,234,567". */
export function formatCount(value: number): string {
  return Math.round(value).toLocaleString("en-US");
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** (1, "record") → "1 record"; (2000, "record") → "2,000 records". */
export function countOf(count: number, noun: string): string {
  return `${formatCount(count)} ${count === 1 ? noun : `${noun}s`}`;
}
