// The privacy-budget meter under a cell: one bar per budget (ε, and δ where the accountant has
// one) with "ε: 1 de 1,5", and the accountant's refusal, in red, beside it. Drawn from an output
// item {kind: "budget", accountants: [...], more} (cellrunner.meter.BudgetWatcher; PROTOCOL.md): the
// numbers come formatted in Spanish from Python (dplab.accountant.show_budget), so the main
// window and the speaker view's mirror show the same text. Text nodes only, never HTML.
import { say } from "../shared/phrases.js";

function el(tag, cls, text) {
  const node = document.createElement(tag);
  if (cls) node.className = cls;
  if (text != null) node.textContent = text;
  return node;
}

/** One bar (an ARIA meter) and "ε: spent de total". */
function bar(symbol, spent, total, text, refused) {
  const line = el("div", "budget-line");
  line.dataset.budget = symbol === "ε" ? "epsilon" : "delta";
  const track = el("span", "budget-bar");
  const ratio = total > 0 ? Math.min(1, Math.max(0, spent / total)) : (spent > 0 ? 1 : 0);
  const fill = el("span", "budget-fill");
  fill.style.width = `${(ratio * 100).toFixed(1)}%`;
  if (ratio >= 1) track.classList.add("full");
  if (refused) track.classList.add("refused");
  track.append(fill);
  track.setAttribute("role", "meter");
  track.setAttribute("aria-valuemin", "0");
  track.setAttribute("aria-valuemax", String(total));
  track.setAttribute("aria-valuenow", String(Math.min(spent, total)));
  track.setAttribute("aria-valuetext", say({ code: "meter-spent", symbol, text }));
  track.setAttribute("aria-label", say({ code: "meter-budget", symbol }));
  line.append(track, el("span", "budget-text", `${symbol}: ${text}`));
  return line;
}

/** Draw ``item`` (a budget item) into ``box`` (the meter's element), replacing what was there. */
export function drawMeter(box, item) {
  const rows = [];
  for (const a of item.accountants ?? []) {
    const row = el("div", "budget-row");
    const refused = a.refused ?? null;
    if (refused) row.classList.add("is-refused");
    const bars = el("div", "budget-bars");
    if (a.name) bars.append(el("span", "budget-name", a.name));
    bars.append(bar("ε", a.epsilon_spent, a.epsilon_total, a.epsilon_text, refused));
    if (a.delta_text != null) bars.append(bar("δ", a.delta_spent, a.delta_total, a.delta_text, refused));
    row.append(bars);
    if (refused) {
      row.append(el("p", "budget-refused", `✗ ${refused}`));
    }
    rows.push(row);
  }
  if (item.more) rows.push(el("p", "budget-more", say({ code: "meter-more", more: item.more })));
  box.replaceChildren(...rows);
}
