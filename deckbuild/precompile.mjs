// Build-time work done with Pyodide's own Python 3.12 (under node), so the browser does not
// redo it on every visit. argv: node_modules, then a JSON file with
//   {compile: [{src, dst, prefix, legacy}], fontCache: {wheels: [...], dst} | null}
// compile: add bytecode to wheels / the stdlib zip; fontCache: install the wheels and write the
// font list matplotlib builds on its first import (paths on this machine).
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
  const count = precompile("/tmp/in.zip", "/tmp/out.zip", job.prefix, job.legacy);
  fs.writeFileSync(job.dst, pyodide.FS.readFile("/tmp/out.zip"));
  process.stdout.write(JSON.stringify({ dst: job.dst, compiled: count }) + "\n");
}
if (jobs.fontCache) {
  await pyodide.loadPackage(jobs.fontCache.wheels, { messageCallback: () => {} });
  const file = pyodide.runPython("font_cache()");
  fs.writeFileSync(jobs.fontCache.dst, pyodide.FS.readFile(file));
  process.stdout.write(JSON.stringify({ dst: jobs.fontCache.dst, fontCache: file }) + "\n");
}
