// static/js's folders say where each module runs (docs/architecture.md): page/ (the page, DOM),
// worker/ (the Python worker), shared/ (what both import), serviceworker/ (a classic script).
// Every relative import (static, dynamic, or a JSDoc type's) keeps to that: the page and the
// worker never import each other's modules, shared/ imports only shared/, the Service Worker
// imports nothing; each shared/ module is imported by both sides, and each worker/ module is
// reached from worker.js (else it belongs in the folder of the one side that uses it).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const JS = fileURLToPath(new URL("../../static/js/", import.meta.url));
const FOLDERS = ["page", "worker", "shared", "serviceworker"];
/** What each folder's modules may import, by folder. */
const MAY_IMPORT = { page: ["page", "shared"], worker: ["worker", "shared"], shared: ["shared"], serviceworker: [] };

/** Every module under static/js, as "folder/name.js" → its relative imports, resolved the same way. */
function graph() {
  const modules = readdirSync(JS, { recursive: true }).map(String).filter((f) => f.endsWith(".js"));
  return new Map(modules.map((file) => {
    const source = readFileSync(path.join(JS, file), "utf8");
    const specs = [...source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)["'](\.{1,2}\/[^"']+)["']/gm)];
    return [file, specs.map(([, spec]) => path.posix.join(path.posix.dirname(file), spec))];
  }));
}

test("static/js holds these four folders and no module outside them", () => {
  const top = readdirSync(JS, { withFileTypes: true });
  assert.deepEqual(top.filter((e) => e.isDirectory()).map((e) => e.name).sort(), [...FOLDERS].sort());
  assert.deepEqual(top.filter((e) => e.isFile() && e.name.endsWith(".js")).map((e) => e.name), []);
});

test("every relative import stays within what its folder may import, and exists", () => {
  const modules = graph();
  const wrong = [];
  for (const [file, imports] of modules) {
    const from = file.split("/")[0];
    for (const target of imports) {
      if (!modules.has(target)) wrong.push(`${file} → ${target}: no such module`);
      else if (!MAY_IMPORT[from].includes(target.split("/")[0])) wrong.push(`${file} → ${target}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test("each shared/ module is imported from both sides; each worker/ module is the worker's", () => {
  const modules = graph();
  const importers = (target) => [...modules].filter(([, imports]) => imports.includes(target)).map(([f]) => f.split("/")[0]);
  for (const file of modules.keys()) {
    if (file.startsWith("shared/")) {
      const by = importers(file).filter((f) => f !== "shared");
      assert.ok(by.includes("page") && by.includes("worker"), `${file} is imported by ${by.join(", ") || "nothing"}: not shared`);
    }
  }
  const reached = new Set(), queue = ["worker/worker.js"];
  while (queue.length) {
    const file = queue.pop();
    if (reached.has(file)) continue;
    reached.add(file);
    queue.push(...(modules.get(file) ?? []));
  }
  const stray = [...modules.keys()].filter((f) => f.startsWith("worker/") && !reached.has(f));
  assert.deepEqual(stray, [], "worker/ modules worker.js never imports");
});
