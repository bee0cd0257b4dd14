// Live parameters: sliders (or selects) bound to a name the cell's code assigns. Moving one
// rewrites that assignment in the editor (the audience sees what runs) and re-runs the cell.

const DEBOUNCE_MS = 120;

function formatNumber(value, step) {
  if (Number.isInteger(step) && Number.isInteger(value)) return String(value);
  const text = Number(value.toPrecision(3)).toString();
  return text.includes(".") || text.includes("e") ? text : `${text}.0`;
}

function pythonLiteral(value) {
  if (typeof value === "string") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? "True" : "False";
  return String(value);
}

/** The current value of ``name = ...`` (first top-level assignment) in ``code``, if literal. */
export function assignedValue(code, name) {
  const m = code.match(new RegExp(`^${name}\\s*=\\s*([^#\\n]+)`, "m"));
  if (!m) return undefined;
  const n = Number(m[1].trim());
  return Number.isFinite(n) ? n : m[1].trim();
}

export function replaceAssignment(code, name, literal) {
  const re = new RegExp(`^(${name}\\s*=\\s*)([^#\\n]*?)(\\s*(#.*)?)$`, "m");
  return re.test(code) ? code.replace(re, (_, head, __, tail) => `${head}${literal}${tail}`) : code;
}

export function buildControls(cell, params) {
  const box = document.createElement("div");
  box.className = "cell-params";
  let timer = null;
  const schedule = () => { clearTimeout(timer); timer = setTimeout(() => cell.requestRun(), DEBOUNCE_MS); };

  for (const p of params) {
    const label = document.createElement("label");
    label.className = "param";
    const name = document.createElement("span");
    name.className = "param-name";
    name.textContent = p.label;
    const shown = document.createElement("output");
    shown.className = "param-value";
    let input;
    const current = assignedValue(cell.code, p.name);
    if (p.options) {
      input = document.createElement("select");
      for (const opt of p.options) {
        const o = document.createElement("option");
        o.value = JSON.stringify(opt);
        o.textContent = String(opt);
        input.append(o);
      }
      const initial = p.value ?? current ?? p.options[0];
      input.value = JSON.stringify(initial);
      input.addEventListener("change", () => {
        const v = JSON.parse(input.value);
        cell.code = replaceAssignment(cell.code, p.name, pythonLiteral(v));
        schedule();
      });
    } else {
      input = document.createElement("input");
      input.type = "range";
      const step = p.step ?? (p.max - p.min) / 100;
      const toValue = p.log
        ? (pos) => p.min * Math.pow(p.max / p.min, pos / 1000)
        : (pos) => p.min + Math.round((pos / 1000) * (p.max - p.min) / step) * step;
      const toPos = p.log
        ? (v) => 1000 * Math.log(v / p.min) / Math.log(p.max / p.min)
        : (v) => 1000 * (v - p.min) / (p.max - p.min);
      input.min = "0"; input.max = "1000"; input.step = "1";
      const initial = typeof (p.value ?? current) === "number" ? (p.value ?? current) : p.min;
      input.value = String(Math.round(toPos(initial)));
      shown.textContent = formatNumber(initial, step);
      input.setAttribute("aria-label", `${p.label}: ${shown.textContent}`);
      input.addEventListener("input", () => {
        const literal = formatNumber(toValue(Number(input.value)), step);
        shown.textContent = literal;
        input.setAttribute("aria-label", `${p.label}: ${literal}`);
        cell.code = replaceAssignment(cell.code, p.name, literal);
        schedule();
      });
    }
    input.dataset.param = p.name;
    label.append(name, input, shown);
    box.append(label);
  }
  return box;
}
