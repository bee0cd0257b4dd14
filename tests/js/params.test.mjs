// The page writes a slider's value exactly where the build bound it (dpdeck/build/cellcode.py
// binding ships the line and the text around the literal), or nowhere.
import { test } from "node:test";
import assert from "node:assert/strict";
import { assignedValue, bindingLine, replaceAssignment } from "../../static/js/page/params.js";

const P = { name: "epsilon", line: 2, prefix: "epsilon = ", suffix: "   # presupuesto" };
const CODE = "import numpy as np\nepsilon = 1.0   # presupuesto\nprint(epsilon)";

test("writes the literal on the bound line, keeping its comment", () => {
  assert.equal(replaceAssignment(CODE, P, "0.25"),
    "import numpy as np\nepsilon = 0.25   # presupuesto\nprint(epsilon)");
  assert.equal(assignedValue(replaceAssignment(CODE, P, "0.25"), P), 0.25);
});

test("follows the line when an edit above moved it", () => {
  const moved = "# nota\n" + CODE;
  assert.equal(bindingLine(moved.split("\n"), P), 2);
  assert.equal(assignedValue(replaceAssignment(moved, P, "3.0"), P), 3);
});

test("changes nothing where the line is gone or ambiguous", () => {
  const gone = CODE.replace("epsilon = 1.0   # presupuesto", "epsilon = f()");
  assert.equal(replaceAssignment(gone, P, "2.0"), gone);
  assert.equal(assignedValue(gone, P), undefined);
  const twice = "x = 0\nepsilon = 1.0   # presupuesto\nepsilon = 2.0   # presupuesto";
  const shifted = "a\n" + twice;   // the bound line (2) no longer fits; two lines do
  assert.equal(bindingLine(shifted.split("\n"), P), -1);
});

test("does not touch other assignments of the name, nor a name that only starts alike", () => {
  const p = { name: "T", line: 3, prefix: "T = ", suffix: "" };
  const code = "for T in range(3):\n    T = 5\nT = 10\nTT = 4";
  assert.equal(replaceAssignment(code, p, "20"), "for T in range(3):\n    T = 5\nT = 20\nTT = 4");
});

test("reads numbers, strings and booleans as Python wrote them", () => {
  const p = { name: "x", line: 1, prefix: "x = ", suffix: "" };
  assert.equal(assignedValue('x = "abc"', p), "abc");
  assert.equal(assignedValue("x = True", p), true);
  assert.equal(assignedValue("x = -2.5", p), -2.5);
});
