// The live hall page's Spanish (static/js/shared/phrases.js, `HALL_PHRASES`): every code says something,
// and the sentences built from parameters read as the page showed them before they moved there
// (the browser tests and the screenshots read these words).
import { test } from "node:test";
import assert from "node:assert/strict";
import { HALL_PHRASES, sayHall } from "../../static/js/shared/phrases.js";
import { heldText, studentsAdmitted } from "../../static/js/page/poll.js";

test("every code of the hall's page has a non-empty text", () => {
  for (const [code, entry] of Object.entries(HALL_PHRASES)) {
    if (typeof entry === "string") assert.ok(entry.trim(), code);
    else assert.equal(typeof entry, "function", code);
  }
});

test("a released count says its interval, its clipping to true bounds, whether it was new, and that the noise works", () => {
  const base = { code: "count-shown", value: 3, low: 2, high: 3, clipped: true, admitted: 3, epsilon: "0,5", sd: "2,8", reach: 6, cover: "96 %" };
  const noise = " Si no coincide con lo que ve en la sala (≈ 0 con dos que lo resolvieron), es el ruido funcionando: "
    + "el conteo publicado se aparta del real hasta ±6 el 96 % de las veces, y por eso dice poco de cada estudiante.";
  assert.equal(sayHall({ ...base, fresh: true }),
    "≈ 3 dispositivos lo resolvieron (IC 95 %: de 2 a 3, recortado a lo público: entre 0 y los 3 dispositivos admitidos; "
    + "conteo con ruido de Laplace discreto, ε = 0,5, desvío típico ≈ 2,8)." + noise);
  assert.equal(sayHall({ ...base, value: 1, low: 0, high: 1, admitted: 1, fresh: false }),
    "≈ 1 dispositivo lo resolvió (IC 95 %: de 0 a 1, recortado a lo público: entre 0 y el único dispositivo admitido; "
    + "conteo con ruido de Laplace discreto, ε = 0,5, desvío típico ≈ 2,8); es el mismo conteo publicado antes: no gastó presupuesto." + noise);
  assert.match(sayHall({ ...base, value: 0, low: 0, high: 6, clipped: true, admitted: null, fresh: true }),
    /^≈ 0 dispositivos .*de 0 a 6, recortado a 0: un conteo no es negativo;/);
  assert.match(sayHall({ ...base, value: 12345, clipped: false, admitted: null, fresh: true }), /^≈ 12\.345 .*\(IC 95 %: de 2 a 3; conteo/);
});

test("the counts' unit of privacy is a browser profile, and m counts cost mε", () => {
  assert.match(sayHall({ code: "count-central" }), /Cuenta perfiles de navegador: .*quien cuenta m veces paga mε por conteo\./);
  assert.match(sayHall({ code: "count-central" }), /un navegador que no guarda datos cuenta de nuevo tras recargar/);
});

test("a poll's unsent answer says why, and a simulated hall its true shares", () => {
  assert.equal(sayHall({ code: "poll-not-sent", option: "sí", why: "busy" }),
    "No se pudo enviar (la sala no puede guardarla en este momento). Su respuesta aleatorizada («sí») espera: ");
  assert.equal(sayHall({ code: "poll-not-sent", option: "0", why: "network" }),
    "No se pudo enviar (no hay conexión con la sala). Su respuesta aleatorizada («0») espera: ");
  assert.equal(sayHall({ code: "poll-simulated-hall", size: 40, options: ["no", "sí"], shares: ["70 %", "30 %"] }),
    "Sala simulada: 40 estudiantes (de verdad, un 30 % diría «sí») y su respuesta.");
  assert.equal(sayHall({ code: "poll-simulated-hall", size: 40, options: ["a", "b", "c"], shares: ["50 %", "33 %", "17 %"] }),
    "Sala simulada: 40 estudiantes (de verdad, a 50 %, b 33 %, c 17 %) y su respuesta.");
});

test("the hall's indicator: state first, then the page's role", () => {
  assert.equal(sayHall({ code: "hall-status", state: "offline", role: "presenter", devices: 2 }), "Sin conexión con la sala: reintentando…");
  assert.equal(sayHall({ code: "hall-status", state: "live", role: "presenter", devices: 1 }), "Presenta · 1 dispositivo");
  assert.equal(sayHall({ code: "hall-status", state: "live", role: "alone", devices: 5 }), "Por su cuenta · 5 dispositivos");
  assert.equal(sayHall({ code: "hall-short", live: false, devices: 5 }), "…");
  assert.equal(sayHall({ code: "hall-return-here", ahead: true }), "Volver con el profesor (más adelante en esta diapositiva)");
});

test("the indicator's full text says the phone's «N en sala» lags behind a device that left (issue 47 item 22)", () => {
  assert.equal(sayHall({ code: "hall-short", live: true, devices: 4 }), "4 en sala");
  for (const role of /** @type {const} */ (["presenter", "following", "alone"])) {
    assert.match(sayHall({ code: "hall-status-title", role }),
      /\. Los dispositivos en sala son los conectados: uno que se va sin cerrar la página .* sigue contado hasta que la sala lo nota \(en las pruebas, de 60 a 90 s\)\.$/);
  }
});

test("a held poll says how many answers are missing, and the interval it would show (issue 47 items 7, 19)", () => {
  // heldSpan as dpdeck/build/live.py computes it at ε = ln 3 (tests/unit/test_live_build.py recomputes it)
  const data = { k: 2, epsilon: Math.log(3), epsilonText: "ln 3", prior: 0.5, options: ["no", "sí"], yesNo: true,
    hold: 10, heldSpan: [0.0983, 0.9667] };
  const said = heldText(data, 3);
  assert.ok(said.startsWith("Faltan 7 respuestas para mostrar el resultado (van 3 de 10). "), said);
  assert.match(said, /con 9 respuestas, su intervalo del 95 % mediría de 10 a 97 puntos de ancho/);
  assert.doesNotMatch(said, /casi 0 %/);
  assert.ok(heldText(data, 9).startsWith("Faltan 1 respuesta para"));
});

test("a new round costs another ε: r rounds cost rε, never «2ε en total» (issue 47 item 2)", () => {
  for (const [code, extra] of [["poll-round-warning", { round: 3 }], ["poll-round-opened", { round: 3 }],
    ["poll-may-answer", { newRound: true, round: 3 }], ["poll-presenter", {}]]) {
    const said = sayHall(/** @type {any} */ ({ code, ...extra }));
    assert.doesNotMatch(said, /2ε en total|segunda publicación/, code);
    assert.match(said, /rε/, code);
  }
  assert.match(sayHall({ code: "poll-round-warning", round: 3 }), /^Una nueva ronda \(la 3\.ª\) es otra publicación: .*hasta 3ε tras esta/);
  assert.match(sayHall({ code: "poll-may-answer", newRound: true, round: 4 }), /^Nueva ronda \(la 4\.ª\): .*hasta 4ε en esta\)\. Elija/);
  assert.equal(sayHall({ code: "poll-may-answer", newRound: false, round: 1 }), "Elija su respuesta: su dispositivo la aleatoriza antes de enviarla.");
});

test("the presenter's page leaves itself out of the devices admitted (issue 47 item 18)", () => {
  // three students and the presenter's page held a channel when the poll was shown: 4 admitted
  assert.equal(studentsAdmitted(4, 1, { poll: "p", round: 1, ticket: "t" }), 3);
  assert.equal(studentsAdmitted(4, 2, { poll: "p", round: 1, ticket: "t" }), 4);   // not admitted to this round
  assert.equal(studentsAdmitted(4, 1, null), 4);                                   // a page the hall did not admit
  assert.equal(studentsAdmitted(null, 1, { poll: "p", round: 1, ticket: "t" }), null);
  assert.equal(sayHall({ code: "poll-answers-of", n: "0", admitted: String(studentsAdmitted(4, 1, { poll: "p", round: 1, ticket: "t" })), one: false }),
    "0 de 3 dispositivos");
});
