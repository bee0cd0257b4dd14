// The editor's diagnostics (static/js/page/diagnostics.js): the failing line of a cell and the
// Spanish message a student reads there. Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { closest, errorLine, explain } from "../../static/js/page/diagnostics.js";

const traceback = (cell, line, last) =>
  `Traceback (most recent call last):\n  File "<celda ${cell}>", line ${line}, in <module>\n    x\n${last}\n`;

test("the failing line is the cell's last frame; none when the cell has no frame", () => {
  const nested = 'Traceback (most recent call last):\n  File "<celda a>", line 5, in <module>\n' +
                 '  File "<celda a>", line 2, in f\n  File "/lib/dplab/x.py", line 9, in g\nValueError: x';
  assert.equal(errorLine({ traceback: nested }, "a"), 2);
  assert.equal(errorLine({ traceback: traceback("b", 3, "E: x") }, "a"), null);
  assert.equal(errorLine({ traceback: '  File "<celda a>", line 4\n    print(\')\'\nSyntaxError: x' }, "a"), 4);
  assert.equal(errorLine({ traceback: "" }, "a"), null);
});

test("a NameError says what is undefined and Python's «did you mean», in Spanish", () => {
  const error = { type: "NameError", message: "name 'censo' is not defined",
                  traceback: traceback("a", 1, "NameError: name 'censo' is not defined. Did you mean: 'census'?") };
  assert.equal(explain(error), "«censo» no está definido: ¿quiso decir «census»?");
  const plain = { type: "NameError", message: "name 'zz' is not defined", traceback: traceback("a", 1, "NameError: name 'zz' is not defined") };
  assert.match(explain(plain), /«zz» no está definido: ¿falta ejecutar/);
});

test("a wrong keyword of a package function names the closest parameter and all of them", () => {
  const index = { byName: new Map([["laplace_mech", { params: [{ name: "v" }, { name: "sensitivity" }, { name: "epsilon" }, { name: "**kw" }] }]]) };
  const error = { type: "TypeError", message: "laplace_mech() got an unexpected keyword argument 'eps'", traceback: "" };
  assert.equal(explain(error, index),
               "laplace_mech() no tiene un parámetro llamado «eps»: ¿quiso decir «epsilon»? Sus parámetros: v, sensitivity, epsilon.");
  const other = { type: "TypeError", message: "f() got an unexpected keyword argument 'q'", traceback: "" };
  assert.equal(explain(other, index), "f() no tiene un parámetro llamado «q».");
});

test("a privacy parameter out of range is explained, its value with a decimal comma", () => {
  const error = { type: "ValueError", message: "epsilon must be > 0 and finite, got -1.5", traceback: "" };
  assert.equal(explain(error), "Parámetro «epsilon» no válido: el presupuesto de privacidad ε debe ser mayor que 0 y finito; se recibió -1,5.");
  const delta = { type: "ValueError", message: "delta must be in (0, 1), got 2", traceback: "" };
  assert.match(explain(delta), /«delta» no válido: la probabilidad de fallo δ debe estar entre 0 y 1.*se recibió 2\.$/);
});

test("anything else keeps Python's own words", () => {
  assert.equal(explain({ type: "ZeroDivisionError", message: "division by zero", traceback: "" }),
               "ZeroDivisionError: division by zero");
  assert.equal(explain({ type: "ValueError", message: "could not convert string to float: 'a'", traceback: "" }),
               "ValueError: could not convert string to float: 'a'");
  assert.equal(closest("xyzzy", ["epsilon", "delta"]), null);
});

test("the «Did you mean» hint is read above the Spanish line cellrunner writes under Python's", () => {
  const error = { type: "NameError", message: "name 'censo' is not defined",
                  traceback: "Traceback (most recent call last):\n  File \"<celda a>\", line 1, in <module>\n" +
                    "NameError: name 'censo' is not defined. Did you mean: 'census'?\n" +
                    "En español: «censo» no está definido: ¿quiso decir «census»?\n" };
  assert.equal(explain(error), "«censo» no está definido: ¿quiso decir «census»?");
});
