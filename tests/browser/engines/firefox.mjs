// Firefox driver of the engine tests: Debian's firefox-esr over WebDriver BiDi with
// puppeteer-core (no browser download). Opens the deck in a fresh profile (a cold load), runs
// an in-page scenario (a file of drivers.source's: scenario.js or hallfollow.js with inpage.js's
// helpers) and prints {driver, report} as one line of JSON.
//
//   node tests/browser/engines/firefox.mjs URL SCENARIO_JS [OPTIONS_JSON]
//
// The first line on stderr is "browser-pid N": the caller kills that process group should
// this script die without closing the browser. SIGTERM/SIGINT close the browser (puppeteer's
// own handlers kill its process group).
import { readdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import puppeteer from "puppeteer-core";

const [url, scenarioPath, optionsJson = "{}"] = process.argv.slice(2);
if (!url || !scenarioPath) {
  console.error("usage: node firefox.mjs URL SCENARIO_JS [OPTIONS_JSON]");
  process.exit(2);
}
const executablePath = process.env.DPDECK_FIREFOX || "/usr/bin/firefox-esr";
const scenario = await readFile(scenarioPath, "utf8");
const options = JSON.parse(optionsJson);
const ms = (t) => Math.round(performance.now() - t) / 1000;

/** CPU seconds so far of every thread of the processes in group ``pgid``: tid → [name, s]. */
function threadTimes(pgid) {
  const times = new Map();
  const tck = 100;   // USER_HZ on Linux
  const read = (path) => { try { return readFileSync(path, "utf8"); } catch { return null; } };
  for (const pid of readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    const stat = read(`/proc/${pid}/stat`);
    if (!stat || Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
    let tids;
    try { tids = readdirSync(`/proc/${pid}/task`); } catch { continue; }
    for (const tid of tids) {
      const s = read(`/proc/${pid}/task/${tid}/stat`);
      if (!s) continue;
      const f = s.slice(s.lastIndexOf(")") + 2).split(" ");
      times.set(tid, [s.slice(s.indexOf("(") + 1, s.lastIndexOf(")")), (Number(f[11]) + Number(f[12])) / tck]);
    }
  }
  return times;
}

/** How busy Firefox is over ``seconds`` (as drivers.cpu_use reports it for the other engines). */
async function cpuUse(pgid, seconds = 3) {
  const before = threadTimes(pgid);
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  const after = threadTimes(pgid);
  const used = [...after].filter(([tid]) => before.has(tid))
    .map(([tid, [name, t]]) => [name, (t - before.get(tid)[1]) / seconds]);
  const round = (x) => Math.round(x * 100) / 100;
  return { seconds, cores: round(used.reduce((sum, [, c]) => sum + c, 0)),
           threads: used.filter(([, c]) => c >= 0.05).sort((a, b) => b[1] - a[1]).slice(0, 8)
             .map(([name, c]) => [name, round(c)]) };
}

const t0 = performance.now();
const browser = await puppeteer.launch({
  browser: "firefox",
  executablePath,
  headless: true,
  // the scenario is one long evaluate: let it take as long as its own deadlines allow
  protocolTimeout: (options.driverTimeout ?? 900) * 1000,
});
let code = 0;
try {
  console.error(`browser-pid ${browser.process()?.pid ?? ""}`);
  const driver = { browser: await browser.version(), launchSeconds: ms(t0) };
  const page = await browser.newPage();
  await page.setViewport(options.viewport);   // dpdeck.serve.browser.VIEWPORT, from drivers.py
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e?.message ?? e)));
  const t1 = performance.now();
  await page.goto(url, { waitUntil: "load", timeout: 60_000 });
  driver.gotoSeconds = ms(t1);
  // evaluate over BiDi is not subject to the page's CSP (which forbids eval in the page)
  const report = await page.evaluate(`(${scenario})(${JSON.stringify(options)})`);
  // the page at rest, all done: nothing should still compute (puppeteer starts Firefox in a
  // process group of its own, led by the browser)
  driver.idle = await cpuUse(browser.process().pid);
  driver.pageErrors = errors;
  driver.totalSeconds = ms(t0);
  process.stdout.write(JSON.stringify({ driver, report }) + "\n");
} catch (e) {
  process.stdout.write(JSON.stringify({ driver: { fatal: String(e?.stack ?? e) } }) + "\n");
  code = 1;
} finally {
  await browser.close().catch(() => {});
}
process.exit(code);
