// Render TeX to HTML with KaTeX at build time, so the page ships no math engine.
// stdin: JSON [{tex, display}], stdout: JSON [{html} | {error}], one entry per input, in order.
import { createRequire } from "node:module";
import { pathToFileURL } from "node:url";
import path from "node:path";

const nodeModules = process.argv[2];
const require = createRequire(pathToFileURL(path.join(nodeModules, "noop.js")));
const katex = require("katex");

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(({ tex, display }) => {
    try {
      return { html: katex.renderToString(tex, { displayMode: display, throwOnError: true,
                                                  strict: "ignore", output: "htmlAndMathml" }) };
    } catch (e) {
      return { error: String(e.message || e) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
