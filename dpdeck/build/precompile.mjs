// Build-time work done with Pyodide's own Python 3.12 (under node), so the browser does not
// redo it on every visit. argv: node_modules, then a JSON file with
//   {compile: [{src, dst, prefix, legacy, stored}], fontCache: {wheels: [...], dst} | null}
// compile: rewrite wheels / the stdlib zip with bytecode for sources, trimmed (precompile.py),
// and write what was done to dst + ".json"; fontCache: install the (rewritten) wheels and write
// the font list matplotlib builds on its first import (paths on this machine).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [nodeModules, jobsFile] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "noop.js"));
const { loadPyodide } = require("pyodide");
const pyodide = await loadPyodide({ indexURL: path.join(nodeModules, "pyodide") + "/",
                                    env: { HOME: "/home/pyodide", MPLBACKEND: "agg" } });
pyodide.runPython(fs.readFileSync(new URL("./precompile.py", import.meta.url), "utf8"));
const precompile = pyodide.globals.get("precompile");
const jobs = JSON.parse(fs.readFileSync(jobsFile, "utf8"));
for (const job of jobs.compile) {
  pyodide.FS.writeFile("/tmp/in.zip", fs.readFileSync(job.src));
  const done = precompile("/tmp/in.zip", "/tmp/out.zip", job.prefix, job.legacy, job.stored);
  const stats = JSON.stringify(done.toJs({ dict_converter: Object.fromEntries }));
  done.destroy();
  fs.writeFileSync(job.dst, pyodide.FS.readFile("/tmp/out.zip"));
  fs.writeFileSync(job.dst + ".json", stats);
  process.stdout.write(JSON.stringify({ dst: job.dst, done: JSON.parse(stats) }) + "\n");
}
if (jobs.fontCache) {
  await pyodide.loadPackage(jobs.fontCache.wheels, { messageCallback: () => {} });
  const file = pyodide.runPython("font_cache()");
  fs.writeFileSync(jobs.fontCache.dst, pyodide.FS.readFile(file));
  process.stdout.write(JSON.stringify({ dst: jobs.fontCache.dst, fontCache: file }) + "\n");
}
