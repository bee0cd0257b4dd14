// The page: reveal.js slides, the Python runtime, and one Cell per code cell.
import Reveal from "reveal";
import RevealNotes from "reveal-notes";
import { Runtime } from "./runtime.js";
import { Cell } from "./cell.js";

const config = JSON.parse(document.getElementById("deck-config").textContent);
const base = new URL(".", document.baseURI).href;

const statusEl = document.getElementById("runtime-status");
const announcer = document.getElementById("announcer");
const announce = (text) => { announcer.textContent = text; };

const runtime = new Runtime(config, base);
runtime.addEventListener("status", (e) => {
  statusEl.dataset.state = e.detail.state;
  statusEl.querySelector(".label").textContent = e.detail.detail;
});
runtime.addEventListener("restart", (e) => announce(e.detail.reason));
runtime.addEventListener("fatal", (e) => {
  statusEl.title = e.detail.traceback || e.detail.message;
});

const cells = [...document.querySelectorAll(".cell")].map((el) => new Cell(el, runtime, announce));

const deck = new Reveal({
  hash: true,
  respondToHashChanges: true,
  slideNumber: "c/t",
  controls: true,
  progress: true,
  center: false,
  width: 1280,
  height: 720,
  margin: 0.03,
  transition: "fade",
  transitionSpeed: "fast",
  plugins: [RevealNotes],
});
await deck.initialize();

// for the tests and for curious students: window.deck.cells[0].run()
window.deck = { reveal: deck, runtime, cells, config };
document.documentElement.dataset.deckReady = "true";
