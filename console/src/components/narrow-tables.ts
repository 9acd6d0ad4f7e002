/**
 * Tables on a narrow screen (a 390-pixel phone): styles.css lays each row out as a card, one
 * line per cell, under 640 px. A card line needs its column's name, which only the table's
 * header holds, so this copies each column header's text onto the cells below it as
 * `data-label` (shown by CSS as `::before`). A table laid out as blocks loses its table
 * semantics in browsers (screen readers then read no rows or headers), so each element also
 * gets its ARIA role, the one it had. One observer for every table of the page: rows come and
 * go (refreshes, the live tail), and each new cell needs its label and role.
 */
import { useEffect } from "preact/hooks";

/** The header text of each column, spans expanded, from the header's last row. */
function columnLabels(table: HTMLTableElement): string[] {
  const row = table.tHead?.rows[table.tHead.rows.length - 1];
  if (row === undefined) return [];
  return [...row.cells].flatMap((cell) => Array.from({ length: cell.colSpan }, () => cell.textContent?.trim() ?? ""));
}

function setRole(element: Element, role: string): void {
  if (element.getAttribute("role") !== role) element.setAttribute("role", role);
}

function cellRole(cell: HTMLTableCellElement): string {
  if (cell.tagName !== "TH") return "cell";
  return cell.scope === "col" || cell.parentElement?.parentElement?.tagName === "THEAD" ? "columnheader" : "rowheader";
}

export function labelTableCells(root: ParentNode): void {
  for (const table of root.querySelectorAll("table")) {
    setRole(table, "table");
    for (const section of [table.tHead, ...table.tBodies, table.tFoot]) if (section !== null) setRole(section, "rowgroup");
    for (const row of table.rows) {
      setRole(row, "row");
      for (const cell of row.cells) setRole(cell, cellRole(cell));
    }
    const labels = columnLabels(table);
    if (labels.length === 0) continue;
    for (const section of [...table.tBodies, ...(table.tFoot === null ? [] : [table.tFoot])]) {
      for (const row of section.rows) {
        let column = 0;
        for (const cell of row.cells) {
          // A cell spanning columns (an empty table's message, a total's name) is a line of its own.
          const label = cell.colSpan > 1 ? "" : labels[column] ?? "";
          if (cell.dataset.label !== label) cell.dataset.label = label;
          column += cell.colSpan;
        }
      }
    }
  }
}

/** Keeps every table of the document labelled while pages change. */
export function useNarrowTableLabels(): void {
  useEffect(() => {
    const root = document.body;
    labelTableCells(root);
    // Nodes added or removed and text changed: setting data-label is an attribute change, which wakes nothing.
    const observer = new MutationObserver(() => labelTableCells(root));
    observer.observe(root, { childList: true, subtree: true, characterData: true });
    return () => observer.disconnect();
  }, []);
}
