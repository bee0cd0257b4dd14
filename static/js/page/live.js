// The live hall, the page's side (docs/live-hall-protocol.md): find the hall server, follow the
// presenter's slide and fragment, publish them from the presenter's page, count the devices,
// report solved exercises, and show the audience URL as a QR code.
//
// The hall is on the deck's own origin, or on the one the build names (`config.hall`, from
// `build --hall` or deck.yaml's `hall:`): then every request goes there (CORS; the CSP names it).
// Without a hall server (a static host, file://, offline, a speaker-view copy) the hall object
// is present with `present === false`: one probe of `_hall/hello` at most, nothing shown, no
// retry. With one, the live channel is an EventSource on `_hall/events`, reconnected with backoff
// (at most ~3 s between tries) after any error, so a restarted server has its followers back
// within seconds. Who follows whom (the `seq` rule, pausing, «Volver con el profesor», when the
// presenter's page publishes) is follow.js's, a pure module: this file feeds it the stream's
// states and reveal.js's moves, and executes its decisions.

import { Follow } from "./follow.js";
import { assertNever } from "../shared/never.js";
import { scrollToFragment } from "./scrollfragment.js";
import { sayDelivery, sayHall } from "../shared/phrases.js";
import { DEVICE_RETRY, PRESENTER_RETRY, mayRetry, retriable, retryAfterMs, retryDelay } from "./retry.js";
import { BROADCASTS, HEX128, hallUrl, resultOf } from "./wire.js";

const TOKEN_KEY = "dpdeck-hall-token";
const DEVICE_KEY = "dpdeck-hall-device";
const SOLVE_KEY = "dpdeck-hall-solve:";   // + exercise id → that exercise's solve token
const TOKEN_RE = /^#presenter=([A-Za-z0-9_-]{43})$/;
const BACKOFF_MS = [250, 500, 1000, 2000, 3000];
const TICKET_WAIT_MS = 3000;   // a ✓ before the greeting's tickets waits this long for them

/** @typedef {import("./follow.js").HallState} HallState */
/** @typedef {import("./follow.js").Here} Here */
/** @typedef {import("./follow.js").Decision} Decision */
/** @typedef {import("../shared/types.js").Tally} Tally */
/** @typedef {import("../shared/types.js").Admit} Admit */
/** @typedef {import("../shared/types.js").HallEvents} HallEvents */
/** @typedef {import("../shared/types.js").HallPosts} HallPosts */
/** @typedef {import("../shared/types.js").HelloReply} HelloReply */
/** @typedef {import("../shared/types.js").Released} Released */
/** @typedef {import("../shared/types.js").HallResults} HallResults */
/** @typedef {import("../shared/types.js").HallRoute} HallRoute */
/** @typedef {import("../shared/types.js").HallBroadcasts} HallBroadcasts */
/** @typedef {HallResults["answer"] | "absent" | "network"} AnswerResult */
/** @typedef {HallResults["solved"] | "absent" | "network"} SolveResult */
/** @typedef {import("./retry.js").RetrySchedule} RetrySchedule */

/** Before reveal.js reads the URL: take the presenter's token out of `#presenter=<token>` (kept
 *  in this tab's sessionStorage; the fragment becomes `#/`), or the one this tab kept. */
export function takeToken() {
  const match = TOKEN_RE.exec(location.hash);
  try {
    if (match) {
      sessionStorage.setItem(TOKEN_KEY, match[1]);
      history.replaceState(history.state, "", `${location.pathname}${location.search}#/`);
    }
    return sessionStorage.getItem(TOKEN_KEY);
  } catch {
    return match ? match[1] : null;   // storage refused (private mode): this page still presents
  }
}

/** A presenter's link opened in a tab that shows the deck already: only the fragment changes, so
 *  the page does not load again and ``takeToken`` never runs. From now on, each `hashchange` to
 *  `#presenter=<token>` keeps the token (as ``takeToken``), puts the URL back where it was (the
 *  slide shown: reveal.js never reads the token as a slide) and hands the token to ``onToken``.
 *  Call it before reveal.js (and its plugins) listen: the event stops here.
 *  @param {(token: string) => void} onToken */
export function listenForPresenterLinks(onToken) {
  addEventListener("hashchange", (e) => {
    const match = TOKEN_RE.exec(location.hash);
    if (!match) return;
    e.stopImmediatePropagation();
    try { sessionStorage.setItem(TOKEN_KEY, match[1]); } catch { /* this page presents all the same */ }
    history.replaceState(history.state, "", e.oldURL);
    onToken(match[1]);
  }, true);
}

/** 128 random bits in hex (32 lower-case characters). */
export function randomId() {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The id kept in localStorage under ``key``, made (and kept) when missing; a new one per call
 *  when storage is refused. */
function keptId(key) {
  try {
    const kept = localStorage.getItem(key);
    if (kept && HEX128.test(kept)) return kept;
  } catch { /* storage refused: a new id for this page */ }
  const id = randomId();
  try { localStorage.setItem(key, id); } catch { /* kept for this page only */ }
  return id;
}

/** This browser's device id on the live channel (the server counts devices with it, in memory
 *  only): made once and kept in localStorage. Answers and solves never carry it. */
export function deviceId() { return keptId(DEVICE_KEY); }

export class Hall extends EventTarget {
  /**
   * @param {import("reveal").RevealDeck} reveal
   * @param {{base: string, token: string | null, origin?: string}} options ``origin``: the
   *   hall's own origin when it is not the deck's ("" or absent: the deck's, under ``base``)
   */
  constructor(reveal, { base, token, origin = "" }) {
    super();
    this.reveal = reveal;
    /** the hall's requests go under this URL: the deck's folder, or the other origin's root */
    this.base = origin ? `${origin}/` : base;
    /** the hall is on another origin: its QR image is asked for with CORS (the deck's COEP) */
    this.crossOrigin = Boolean(origin) && new URL(this.base).origin !== new URL(base).origin;
    this.token = token;
    this.present = false;
    /** who follows whom: the pure state machine (follow.js) */
    this.follow = new Follow({ presenter: Boolean(token) });
    this.deviceId = deviceId();
    /** @type {Map<string, string>} exercise id → its solve token, for this page (storage may be refused) */
    this.solveTokens = new Map();
    /** @type {"absent" | "connecting" | "live" | "offline"} */
    this.state = "absent";
    this.devices = 0;
    this.attempt = 0;
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {Map<string, Tally>} */
    this.tallies = new Map();
    /** @type {Map<string, Admit>} poll id → this device's admission ticket for the poll's
     *  current round (in memory only: the hall sends it again on every new stream) */
    this.tickets = new Map();
    /** @type {Map<string, string>} exercise id → this device's ticket for it (the hall sends
     *  them on every new stream; none when the hall did not admit this device to its counts) */
    this.exerciseTickets = new Map();
    /** the number of the stream that brought each ticket, by poll and by exercise: a fresh hall
     *  (a new session) drops what earlier streams brought */
    this.ticketStreams = { polls: new Map(), exercises: new Map() };
    /** how many streams this page has opened */
    this.streams = 0;
    this.audience = [];
    /** ms from the presenter's publish (its seq is its clock) to this page applying it: a
     *  measure on one machine (tests, bench), only rough between two */
    this.lastDelayMs = NaN;
    /** @type {{device: RetrySchedule, presenter: RetrySchedule}} when a write is sent again
     *  (retry.js; a test may shorten them) */
    this.retry = { device: DEVICE_RETRY, presenter: PRESENTER_RETRY };
    /** which hall answered: `hello`'s ``session`` (a hall session's own id, the same over its
     *  restarts), or, from a hall that names none, its audience URL; "" before `hello` */
    this.session = "";
    /** @type {HallState | null} the presenter's page: its latest position, until the hall
     *  acknowledges it (a newer one supersedes it) */
    this.pending = null;
    /** the presenter's page: its latest position was sent and not acknowledged yet (retrying) */
    this.unsent = false;
  }

  /** this page holds the presenter's token (until a 403) */
  get presenter() { return this.follow.presenter; }
  /** this page follows the presenter's position (a follower that moved away itself does not) */
  get following() { return this.follow.following; }
  /** @returns {HallState | null} the presenter's latest position */
  get target() { return this.follow.target; }
  /** the presenter's last published seq */
  get seq() { return this.follow.seq; }

  /** The URL of one of the hall's routes (wire.js, from dpdeck/wire/hall.py).
   *  @param {Exclude<HallRoute, "events">} name */
  url(name) { return hallUrl(this.base, name); }

  /** Ask once whether a hall server is here; if so, connect and show the hall's parts. */
  async start() {
    if (location.protocol !== "http:" && location.protocol !== "https:") return this;
    for (const type of ["slidechanged", "fragmentshown", "fragmenthidden"]) {
      this.reveal.on(type, () => this.onLocalMove());   // from the start: a move before the hall answers counts
    }
    /** @type {Partial<HelloReply> | null} what answered: another version's hall may differ */
    let hello;
    try {
      const response = await fetch(this.url("hello"), { cache: "no-store" });
      hello = resultOf("hello", response.status) === "hall" ? await response.json() : null;
    } catch { hello = null; }
    if (hello?.hall !== 1) return this;
    this.present = true;
    this.follow.found();
    this.audience = Array.isArray(hello.audience) ? hello.audience.map(String) : [];
    this.session = this.sessionOf(hello);
    const counts = hello.counts;
    /** @type {{epsilon: number, budget: number} | null} the exercise counts' ε and budget */
    this.counts = counts !== undefined && Number.isFinite(counts.epsilon) ? { epsilon: counts.epsilon, budget: counts.budget } : null;
    this.devices = Number(hello.devices) || 0;
    const { installHallView } = await import("./live-view.js");
    this.view = installHallView(this);
    this.connect();
    return this;
  }

  /** The hall a `hello` reply comes from: its ``session`` (a hall session's own id), or its
   *  audience URL when it names none. @param {Partial<HelloReply>} hello */
  sessionOf(hello) {
    const session = /** @type {{session?: unknown}} */ (hello).session;
    return typeof session === "string" && session ? `session:${session}` : `audience:${this.audience[0] ?? this.base}`;
  }

  /** The channel is back after an error: the hall may be another one now (a fresh session on
   *  the same address). Ask `hello` again; a new session drops the tickets that streams before
   *  ``stream`` brought (the earlier hall's: this one refuses them) and is said with a `status`
   *  (poll.js then reads what it kept for this hall).
   *  @param {number} stream the number of the stream that is back */
  async reidentify(stream) {
    let hello;
    try {
      const response = await fetch(this.url("hello"), { cache: "no-store" });
      hello = resultOf("hello", response.status) === "hall" ? await response.json() : null;
    } catch { return; }
    if (hello?.hall !== 1) return;
    const session = this.sessionOf(hello);
    if (session === this.session) return;
    for (const [tickets, streams] of /** @type {const} */ ([
      [this.tickets, this.ticketStreams.polls], [this.exerciseTickets, this.ticketStreams.exercises],
    ])) {
      for (const [id, from] of [...streams]) {
        if (from < stream) { streams.delete(id); tickets.delete(id); }
      }
    }
    this.session = session;
    this.emitStatus();
  }

  connect() {
    this.setState(this.attempt ? "offline" : "connecting");
    const source = this.source = new EventSource(hallUrl(this.base, "events", { device: this.deviceId }));
    const stream = ++this.streams;
    source.onopen = () => {
      const back = this.attempt > 0;
      this.attempt = 0;
      this.setState("live");
      if (back) this.reidentify(stream);
    };
    source.onerror = () => {
      source.close();
      if (this.source !== source) return;
      const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)] * (0.5 + Math.random() / 2);
      this.attempt += 1;
      this.setState("offline");
      setTimeout(() => this.connect(), delay);
    };
    /** Listen to one of the stream's events (dpdeck/wire/hall.py declares each, and its data).
     *  @template {keyof HallEvents} K @param {K} type @param {(data: HallEvents[K]) => void} fn */
    const on = (type, fn) => source.addEventListener(type, (/** @type {MessageEvent} */ e) => {
      let data;
      try { data = JSON.parse(e.data); } catch { return; }
      fn(data);
    });
    // the stream's greeting: its first state, if it comes before its first devices, is the
    // server's current one; a stream that starts with devices found the server without one
    let greeted = false;
    on("state", (s) => {
      if (greeted) this.onState(s);
      else { greeted = true; this.onGreeting(s); }
    });
    on("devices", (d) => {
      if (!greeted) { greeted = true; this.onGreeting(null); }
      this.devices = Number(d.n) || 0;
      this.emitStatus();
    });
    on("admit", (a) => {
      if (typeof a.poll !== "string" || typeof a.ticket !== "string") return;
      this.tickets.set(a.poll, { poll: a.poll, round: Number(a.round) || 1, ticket: a.ticket });
      this.ticketStreams.polls.set(a.poll, stream);
      this.dispatchEvent(new CustomEvent("admit", { detail: this.tickets.get(a.poll) }));
    });
    on("tickets", (e) => {
      for (const [exercise, ticket] of Object.entries(e.exercises ?? {})) {
        if (typeof ticket !== "string") continue;
        this.exerciseTickets.set(exercise, ticket);
        this.ticketStreams.exercises.set(exercise, stream);
      }
    });
    on("tally", (t) => {
      this.tallies.set(t.poll, t);
      this.dispatchEvent(new CustomEvent("tally", { detail: t }));
    });
    // the presenter's broadcasts (wire.js: kept by the hall, replayed to a new stream): each
    // goes on as a DOM event of its name, whose handler is the page's part that shows it
    for (const name of BROADCASTS) {
      on(name, (data) => { this.dispatchEvent(new CustomEvent(name, { detail: data })); });
    }
  }

  setState(state) { this.state = state; this.emitStatus(); }

  emitStatus() {
    this.view?.render();
    this.dispatchEvent(new CustomEvent("status", {
      detail: { state: this.state, devices: this.devices, following: this.following } }));
  }

  /** Where the page is now, as follow.js takes it. @returns {Here} */
  here() {
    const here = this.reveal.getIndices();
    return { indexh: here.h, indexv: here.v || 0, indexf: here.f ?? -1, scroll: this.reveal.isScrollView() };
  }

  /** The presenter's position arrived, pushed. */
  onState(s) { this.run(this.follow.state(s, this.here(), Date.now())); }

  /** A new stream's first state (the server's), or null: the server has none. */
  onGreeting(s) { this.run(this.follow.greeting(s, this.here(), Date.now())); }

  onLocalMove() { this.run(this.follow.localMove(this.here(), Date.now())); }

  /** Back to the presenter's position, following again. */
  rejoin() { this.run(this.follow.rejoin()); }

  /** Execute follow.js's decisions, in order. @param {Decision[]} decisions */
  run(decisions) {
    for (const decision of decisions) {
      switch (decision.kind) {
        case "apply":
          this.apply(decision.state);
          if (decision.timed) this.lastDelayMs = Date.now() - decision.state.seq;
          break;
        case "publish": this.publish(decision.state); break;
        case "status": this.emitStatus(); break;
        default: assertNever(decision);
      }
    }
  }

  /** Move the deck to ``s``: the moves reveal.js reports meanwhile are not the page's own. */
  apply(/** @type {HallState} */ s) {
    this.follow.startApply();
    try {
      this.reveal.slide(s.indexh, s.indexv, s.indexf);
      // the phones' scroll view shows fragments by scroll position: go to the presenter's one,
      // or to none (-1): a fragment the presenter hid again by stepping back is hidden here too
      if (this.reveal.isScrollView()) {
        scrollToFragment(this.reveal.getRevealElement(), s.indexh, s.indexv, s.indexf);
      }
    } finally { this.follow.endApply(); }
  }

  /** The presenter's page: post its position (follow.js chose the seq), again and again until
   *  the hall acknowledges it (204), or a newer position supersedes it; meanwhile the
   *  indicator says the hall does not have it (``unsent``). */
  async publish(/** @type {HallState} */ body) {
    this.pending = body;
    const superseded = () => this.pending !== body || !this.presenter;
    const response = await this.deliver("state", body, {
      auth: true, schedule: this.retry.presenter, superseded,
      onRetry: () => { if (!this.unsent) { this.unsent = true; this.emitStatus(); } },
    });
    if (superseded()) return;
    this.pending = null;
    if (this.unsent) { this.unsent = false; this.emitStatus(); }
    if (resultOf("state", response?.status) === "refused") this.dropToken();
  }

  /** The presenter's page: broadcast ``body`` to every device (a route wire.js lists in
   *  ``BROADCASTS``; the hall keeps it for late joiners), sent again until acknowledged.
   *  @template {keyof HallBroadcasts} R @param {R} name @param {HallBroadcasts[R]} body
   *  @returns {Promise<boolean>} whether the hall took it */
  async broadcast(name, body) {
    if (!this.present || !this.presenter) return false;
    const response = await this.deliver(name, body, { auth: true, schedule: this.retry.presenter });
    const result = resultOf(name, response?.status);
    if (result === "refused") this.dropToken();
    return result === "ok";
  }

  /** A presenter's link opened in this tab (listenForPresenterLinks): this page presents from
   *  now on. Like a presenter's page just opened, it takes the hall's position until it moves;
   *  a token the hall refuses makes it a follower again at its first move (403), said so. */
  takePresenter(/** @type {string} */ token) {
    this.token = token;
    const was = this.presenter;
    this.follow.takePresenter();
    if (!was) this.view?.notice(sayDelivery({ code: "presenting-now" }));
    this.emitStatus();
  }

  dropToken() {
    this.follow.dropPresenter();
    this.token = null;
    try { sessionStorage.removeItem(TOKEN_KEY); } catch { /* nothing kept */ }
    this.view?.notice(sayHall({ code: "hall-token-refused" }));
    this.emitStatus();
  }

  /** POST ``body`` until the hall acknowledges it: the same body again after a reply worth a
   *  retry (retry.js: none, 408, 429, 5xx), at the schedule's waits (honouring Retry-After),
   *  until a final reply, the schedule's end, or ``superseded()``. Every write the hall takes
   *  is idempotent by what its body carries, so a resend never counts twice: the body is sent
   *  as it is, whatever fields it holds. ``onRetry(retry, waitMs, status)`` is told before
   *  each wait.
   *  @template {keyof HallPosts} R @param {R} path @param {HallPosts[R]} body
   *  @param {{auth?: boolean, schedule?: RetrySchedule, superseded?: () => boolean,
   *           onRetry?: ((retry: number, waitMs: number, status: number | null) => void) | null}} [options]
   *  @returns {Promise<Response | null>} the last reply (null: no network) */
  async deliver(path, body, { auth = false, schedule = this.retry.device, superseded = () => false, onRetry = null } = {}) {
    for (let retry = 0; ; retry++) {
      const response = await this.post(path, body, auth);
      const status = response?.status ?? null;
      if (!retriable(status) || !mayRetry(retry, schedule) || superseded()) return response;
      const wait = retryDelay(retry, schedule, retryAfterMs(response?.headers.get("Retry-After"), Date.now()));
      onRetry?.(retry, wait, status);
      await new Promise((resolve) => { setTimeout(resolve, wait); });
      if (superseded()) return response;
    }
  }

  /** POST a body the hall declares for this route (dpdeck/wire/hall.py: ``HallPosts``).
   *  @template {keyof HallPosts} R @param {R} path @param {HallPosts[R]} body
   *  @returns {Promise<Response | null>} null: no network */
  async post(path, body, auth = false) {
    /** @type {Record<string, string>} */
    const headers = { "Content-Type": "application/json" };
    if (auth && this.token) headers.Authorization = `Bearer ${this.token}`;
    try {
      return await fetch(this.url(path), { method: "POST", headers, body: JSON.stringify(body), cache: "no-store" });
    } catch { return null; }
  }

  /** The latest tally of a poll, or null. */
  tally(pollId) { return this.tallies.get(pollId) ?? null; }

  /** This device's admission ticket for a poll's current round, or null: not admitted (it
   *  connected after the poll was shown), or the poll not shown yet. @returns {Admit | null} */
  ticket(pollId) { return this.tickets.get(pollId) ?? null; }

  /** Send a poll's randomized answer (the true one never leaves the device) under ``token``,
   *  the id this device drew for this poll alone (the server keeps one answer per token), with
   *  the admission ``ticket`` the hall sent it for this round ("refused": none, or spent).
   *  @param {string} pollId @param {number} answer @param {string} token @param {string | null} [ticket]
   *  @returns {Promise<AnswerResult>} */
  async answer(pollId, answer, token, ticket = this.ticket(pollId)?.ticket ?? null) {
    if (!this.present) return "absent";
    // sent again until acknowledged (deliver); a 409 «ya respondió» after a send whose reply was
    // lost is this very answer, kept by that send: sent ("ok")
    let retried = false;
    const body = { token, poll: pollId, answer, ...(ticket ? { ticket } : {}) };
    const response = await this.deliver("answer", body, { onRetry: () => { retried = true; } });
    const result = resultOf("answer", response?.status);
    return result === "duplicate" && retried ? "ok" : result;
  }

  /** An exercise was solved on this device: tell the hall (counted once per exercise token, a
   *  random id drawn for this exercise alone, so no id links two exercises or a poll, with the
   *  exercise's ticket the hall sent this device: one count per device; "refused": none), sent
   *  again until the hall acknowledges it (deliver: 201, or 200 for a solve it kept
   *  already). ``onRetry``: the first send failed, it is being sent again.
   *  @param {string} exerciseId @param {{onRetry?: (() => void) | null}} [options]
   *  @returns {Promise<SolveResult>} */
  async solved(exerciseId, { onRetry = null } = {}) {
    if (!this.present) return "absent";
    const token = this.solveTokens.get(exerciseId) ?? keptId(SOLVE_KEY + exerciseId);
    this.solveTokens.set(exerciseId, token);   // a second ✓ on this page is the same solve
    const ticket = await this.exerciseTicket(exerciseId);
    const body = { token, exercise: exerciseId, ...(ticket ? { ticket } : {}) };
    return resultOf("solved", (await this.deliver("solved", body, { onRetry }))?.status);
  }

  /** This device's ticket for an exercise: at once once the stream's greeting brought it; a ✓
   *  made before that (the page just loaded) waits for it, up to ``TICKET_WAIT_MS``. undefined:
   *  none came (the hall did not admit this device to its counts: the solve gets 403).
   *  @param {string} exerciseId @returns {Promise<string | undefined>} */
  async exerciseTicket(exerciseId) {
    for (let waited = 0; !this.exerciseTickets.has(exerciseId) && waited < TICKET_WAIT_MS; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return this.exerciseTickets.get(exerciseId);
  }

  /** The presenter's page: the hall's noised count of an exercise (the server draws it and
   *  keeps the budget; ``again`` asks for a new draw, spent). null: no answer from the hall.
   *  @param {string} exerciseId @param {boolean} again
   *  @returns {Promise<{status: number, body: Released} | null>} */
  async releaseCount(exerciseId, again) {
    if (!this.present || !this.presenter) return null;
    const response = await this.post("release", { exercise: exerciseId, again }, true);
    if (!response) return null;
    if (resultOf("release", response.status) === "refused") { this.dropToken(); return null; }
    try { return { status: response.status, body: await response.json() }; } catch { return null; }
  }

  /** The presenter's page: delete a poll's answers (a new round). */
  async reset(pollId) {
    if (!this.present || !this.presenter) return false;
    return resultOf("reset", (await this.post("reset", { poll: pollId }, true))?.status) === "ok";
  }
}

/** Start the hall's part of the page after reveal.js is ready (a speaker-view copy: never
 *  connects), and put it in the page's holder (context.js), where the components follow it.
 *  @param {import("./context.js").HallHolder} holder
 *  @param {import("reveal").RevealDeck} reveal
 *  @param {{base: string, token: string | null, receiver: boolean, origin?: string}} options */
export function startHall(holder, reveal, { base, token, receiver, origin = "" }) {
  const hall = new Hall(reveal, { base, token: receiver ? null : token, origin });
  holder.set(hall);
  if (!receiver) hall.start();
  return hall;
}
