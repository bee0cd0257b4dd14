// What a student reads after sending a poll answer (static/js/shared/phrases.js, «poll-sent»; issue 47,
// item 9): randomized response leaves the truth probable, never certain and never unknowable. At
// ε = ln 3 the answer sent is the student's 75 % of the time (1 − 2,1·10⁻⁹ at ε = 20): «nadie
// puede saber si lo es» overclaimed. The number is the poll rule's, which the build computes
// (dpdeck/build/live.py, truth_text; tests/unit/test_deck_claims.py checks it against dplab).
import { test } from "node:test";
import assert from "node:assert/strict";
import { sayHall } from "../../static/js/shared/phrases.js";

test("a sent answer: no one can be sure it is the student's, and the rule says how likely it is", () => {
  const said = sayHall({ code: "poll-sent", option: "sí" });
  assert.doesNotMatch(said, /nadie puede saber/);
  assert.match(said, /^Enviada\. Su dispositivo envió «sí»: puede no ser su respuesta, y nadie puede estar seguro de que lo sea/);
  assert.match(said, /probabilidad que dice la regla de la encuesta/);
});
