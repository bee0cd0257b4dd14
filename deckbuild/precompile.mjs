// Compile the .py files of Pyodide wheels (and the stdlib zip) to bytecode with Pyodide's own
// Python 3.12, at build time, so the browser does not compile them on every visit.
// argv: node_modules, then a JSON file [{src, dst, prefix, legacy}] (paths on this machine).
import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

const [nodeModules, jobsFile] = process.argv.slice(2);
const require = createRequire(path.join(nodeModules, "noop.js"));
const { loadPyodide } = require("pyodide");
const pyodide = await loadPyodide({ indexURL: path.join(nodeModules, "pyodide") + "/" });
pyodide.runPython(fs.readFileSync(new URL("./precompile.py", import.meta.url), "utf8"));
const precompile = pyodide.globals.get("precompile");
for (const job of JSON.parse(fs.readFileSync(jobsFile, "utf8"))) {
  pyodide.FS.writeFile("/tmp/in.zip", fs.readFileSync(job.src));
  const count = precompile("/tmp/in.zip", "/tmp/out.zip", job.prefix, job.legacy);
  fs.writeFileSync(job.dst, pyodide.FS.readFile("/tmp/out.zip"));
  process.stdout.write(JSON.stringify({ dst: job.dst, compiled: count }) + "\n");
}
