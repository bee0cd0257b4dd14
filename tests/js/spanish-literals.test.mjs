// The page's Spanish lives in static/js/shared/phrases.js alone (types.js, `UiLabel` and `UiPhrase`):
// a string or template literal with Spanish in it (an accented letter, «ñ», «¿», «¡») anywhere
// else in static/js fails here. Comments may say what they like. Parsed with ESLint's parser,
// so a regular expression or a comment is never taken for a string.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { Linter } from "eslint";

const JS = new URL("../../static/js/", import.meta.url);

const SPANISH = "[áéíóúüñÁÉÍÓÚÜÑ¿¡]";
const linter = new Linter({ configType: "flat" });
const config = [{
  languageOptions: { ecmaVersion: "latest", sourceType: "module" },
  rules: {
    "no-restricted-syntax": ["error",
      { selector: `Literal[value=/${SPANISH}/]`, message: "Spanish in a string literal" },
      { selector: `TemplateElement[value.raw=/${SPANISH}/]`, message: "Spanish in a template literal" }],
  },
}];

/** The Spanish literals of ``source``: ["line: text"], or a parse error as one entry. */
export function spanishLiterals(source) {
  return linter.verify(source, config).map((m) => `${m.line}: ${m.message}: ${source.split("\n")[m.line - 1].trim()}`);
}

test("the guard finds Spanish in strings and templates, not in comments or regular expressions", () => {
  assert.deepEqual(spanishLiterals('// «¿qué?» in a comment\n/* también */\nconst a = /ñ+/;\nconst b = "ok";\n'), []);
  assert.equal(spanishLiterals('const a = "Ejecución";\n').length, 1);
  assert.equal(spanishLiterals("const a = 'ñ';\n").length, 1);
  assert.equal(spanishLiterals("const a = (n) => `van ${n} s, más`;\n").length, 1);
  assert.equal(spanishLiterals('const a = { "¿": 1 };\n').length, 1);   // a key is a literal too
});

test("no Spanish literal in static/js but phrases.js", () => {
  const files = readdirSync(JS, { recursive: true }).map(String)
    .filter((f) => f.endsWith(".js") && f !== "shared/phrases.js");
  assert.ok(files.includes("page/cell.js") && files.includes("worker/worker.js"), "reads static/js");
  const found = files.flatMap((f) => spanishLiterals(readFileSync(new URL(f, JS), "utf8")).map((m) => `${f}:${m}`));
  assert.deepEqual(found, [], "move these to phrases.js (types.js: UiLabel, UiPhrase, HallPhrase)");
});
