/** A file imported as text (`import doc from "…/docs/x.md?raw"`: vite's raw import, which the workers layer's vitest serves). */
declare module "*?raw" {
  const text: string;
  export default text;
}
