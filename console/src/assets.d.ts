/** Stylesheets imported for their effect: esbuild bundles them into main.css. */
declare module "*.css";
