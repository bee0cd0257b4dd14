// The worker's boot (static/js/worker/worker.js, boot) step by step, in Node on this machine's CPU:
// no network, no page beside it. What is left between core ready and the first cell when every
// byte is already there (P2 allows 0,5 s).
//
//     node bench/diagnose/node_boot.mjs [dist] [--reps 3]
//
// Reads the built deck's config (dist/index.html, #deck-config) for Pyodide's folder, the boot
// packages, the deck's wheels and the prelude, then times each step of a fresh interpreter, as
// the worker takes them, once per repetition (each in a new interpreter), and prints medians.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const args = process.argv.slice(2);
const dist = resolve(args.find((a) => !a.startsWith("--") && !/^\d+$/.test(a)) ?? "dist");
const reps = Number(args[args.indexOf("--reps") + 1]) || 3;
const html = readFileSync(resolve(dist, "index.html"), "utf8");
const config = JSON.parse(html.split('id="deck-config">')[1].split("</script>")[0]);
const index = resolve(dist, config.pyodideIndex) + "/";
const { loadPyodide } = await import(pathToFileURL(index + "pyodide.mjs").href);
const quiet = { messageCallback: () => {} };

/** One boot, timed step by step: [step, seconds][]. */
async function boot() {
  const steps = [];
  let t = performance.now();
  const lap = (name) => { const now = performance.now(); steps.push([name, (now - t) / 1000]); t = now; };
  const python = await loadPyodide({ indexURL: index });
  lap("loadPyodide (core ready)");
  await python.loadPackage(config.packages, quiet);
  lap(`loadPackage(${config.packages.join(", ")})`);
  await python.loadPackage([config.wheel, config.runner].map((w) => resolve(dist, w)), quiet);
  lap("loadPackage(the deck's wheels)");
  python.runPython("import cellrunner");
  lap("import cellrunner");
  python.globals.set("prelude", config.prelude);
  python.runPython("session = cellrunner.Session()\nsession.run(prelude, '__prelude__', lambda kind, payload: None)");
  lap("Session() and the prelude");
  return steps;
}

const runs = [];
for (let rep = 0; rep < reps; rep++) runs.push(await boot());
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(`the worker's boot in Node ${process.version}, ${reps} fresh interpreters, medians (s)`);
let after = 0;
runs[0].forEach(([name], i) => {
  const m = median(runs.map((r) => r[i][1]));
  if (i > 0) after += m;
  console.log(`  ${name.padEnd(34)} ${m.toFixed(3)}`);
});
console.log(`  ${"core ready -> prelude done".padEnd(34)} ${after.toFixed(3)}`);
