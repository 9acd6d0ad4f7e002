/** The console's entry (console/build.ts bundles it with Preact, uPlot and the styles). */
import { render } from "preact";
import "uplot/dist/uPlot.min.css";
import "./styles.css";
import { App } from "./app.tsx";

render(<App />, document.getElementById("app")!);
