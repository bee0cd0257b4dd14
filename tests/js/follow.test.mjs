// Model-based tests of following in the live hall (static/js/page/follow.js) under node's test runner:
// a model of the hall server (it keeps the state with the greatest seq it was sent, pushes each
// one it keeps to every stream, greets a new stream with its state) and of each page (reveal.js's
// events as it fires them, live.js's wiring of follow.js), driven through thousands of seeded
// random interleavings of the presenter's and the students' moves (the phones' scroll view too),
// dropped streams and reconnects, reloads of the presenter's page and of the students', late,
// reordered and duplicated events, and server restarts whose state comes back as it was, older
// (the last commits lost) or missing (a new hall file).
// Run: node --test tests/js/   (a failure prints its seed; FOLLOW_SEED=n replays one)
//
// The clock. Each page's clock is Date.now(): in the model it never goes back, and a reload takes
// at least 100 ms. A clock set back by more than a reload's time would let a reloaded presenter
// page's first moves (before its stream's greeting) carry a seq the server already passed: the
// server ignores them (204) until the greeting's state lifts the page's seq above it.
//
// Convergence is checked once the hall is quiet, against the presenter's page once it moved or
// published. A reopened presenter page that has not moved shows the last state it took; when the
// server lost newer states before the page reopened (a power cut), students that kept them keep
// them until the presenter moves: nothing tells the presenter's page, and the check skips it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { Follow, hallState } from "../../static/js/page/follow.js";
import { rng } from "./mulberry32.mjs";

const SEEDS = Number(process.env.FOLLOW_SEEDS ?? 3000);
const EPOCH = 1_767_225_600_000;   // the model's Date.now() at its start
const BACKOFF_MS = [250, 500, 1000, 2000, 3000];   // live.js's
// the deck: per horizontal slide, the fragment count of each of its vertical slides
const DECK = [[0], [2], [0, 1, 3], [1], [0, 0], [2], [0]];


const TITLE = { indexh: 0, indexv: 0, indexf: -1 };
const show = (p) => (p ? `${p.seq ?? ""}@${p.indexh}/${p.indexv}/${p.indexf}` : "none");
// the scroll view: a fragment behind the presenter's follows, one ahead reads ahead
const samePlace = (a, b, scroll) =>
  a.indexh === b.indexh && a.indexv === b.indexv && (scroll ? a.indexf <= b.indexf : a.indexf === b.indexf);

/** One page: reveal.js as far as following sees it, and live.js's wiring of follow.js. */
class Page {
  constructor(world, name, { presenter, scroll, pos }) {
    Object.assign(this, { world, name, scroll, pos: { ...pos } });
    this.follow = new Follow({ presenter });
    this.alive = true;
    this.stream = null;
    this.attempt = 0;
    this.accepted = -Infinity;   // the greatest seq this instance accepted
  }

  here() { return { ...this.pos, scroll: this.scroll }; }

  /** Check after every call into follow.js: the accepted seq never goes back. */
  call(what, fn) {
    const decisions = fn();
    const seq = this.follow.target?.seq ?? -Infinity;
    assert.ok(seq >= this.accepted, `${this.name}: accepted seq went back from ${this.accepted} to ${seq} (${what})`);
    this.accepted = seq;
    const f = this.follow;
    if (!f.present) assert.ok(f.following, `${this.name}: paused before it heard of a hall`);
    if ((what === "move" || what === "scrolled") && !f.presenter && f.present) {
      // a student's own move pauses it exactly when it leaves the presenter's position (only the
      // slide counts in the scroll view), and resumes it when it lands there
      const there = f.target === null || samePlace(this.pos, f.target, this.scroll);
      assert.equal(f.following, there, `${this.name}${this.scroll ? " (scroll view)" : ""} at ${show(this.pos)}, ` +
                   `the presenter's ${show(f.target)}: following should be ${there}`);
    }
    this.run(decisions, what);
  }

  run(decisions, what) {
    for (const d of decisions) {
      if (d.kind === "apply") this.apply(d.state, what);
      else if (d.kind === "publish") {
        assert.notEqual(what, "guarded", `${this.name}: applying a state made it publish (not a move of its own)`);
        this.world.post(this, d.state);
      } else assert.equal(d.kind, "status");
    }
  }

  /** reveal.js's events for a move to ``to``: fragment events, then slidechanged, each seeing
   *  the final position (reveal.js fires them from inside slide()). */
  moveTo(to) {
    const before = this.pos;
    this.pos = { ...to };
    let events = 0;
    if (before.indexf !== to.indexf) events += 1 + Number(this.world.random() < 0.3);   // hidden + shown
    if (before.indexh !== to.indexh || before.indexv !== to.indexv) events += 1;
    return events;
  }

  /** The user moves this page (a key, a swipe, a scroll). */
  userMove(to) {
    this.world.log.push(`${this.world.now} ${this.name} moves to ${show(to)}`);
    const events = this.moveTo(to);
    if (this.follow.presenter) this.world.causes += events;   // one publish per event
    for (let i = 0; i < events; i++) this.call("move", () => this.follow.localMove(this.here(), this.world.clock()));
  }

  /** live.js's apply: in the slides view reveal.js fires its events inside slide(), guarded; the
   *  scroll view scrolls, and its events come later, unguarded. */
  apply(state, what) {
    this.world.log.push(`${this.world.now} ${this.name} applies ${show(state)} (${what})`);
    this.follow.startApply();
    const events = this.moveTo(state);
    if (!this.scroll) {
      for (let i = 0; i < events; i++) this.run(this.follow.localMove(this.here(), this.world.clock()), "guarded");
    }
    this.follow.endApply();
    if (this.scroll && events) {
      this.world.at(this.world.uniform(0, 80), () => {
        if (this.alive) this.call("scrolled", () => this.follow.localMove(this.here(), this.world.clock()));
      });
    }
  }

  /** A state event from the stream (``greeting``: the first of a stream, null when the server had none). */
  receive(state, greeting) {
    const paused = !this.follow.presenter && !this.follow.following;
    const follow = this.follow;
    this.world.log.push(`${this.world.now} ${this.name} hears ${show(state)}${greeting ? " (greeting)" : ""}`);
    if (greeting && follow.presenter) this.world.causes += 1;   // it may publish once per greeting
    const decisions = greeting ? follow.greeting(state, this.here(), this.world.clock())
      : follow.state(state, this.here(), this.world.clock());
    assert.ok(!(paused && decisions.some((d) => d.kind === "apply")), `${this.name}: a paused student was moved by ${show(state)}`);
    this.call("state", () => decisions);
  }
}

/** The hall server, the network and the pages. */
class World {
  constructor(seed) {
    this.random = rng(seed);
    this.now = 0;
    this.events = [];
    this.order = 0;
    this.log = [];
    this.server = { up: true, state: null, kept: [], streams: new Set() };
    this.published = [];   // every seq a presenter's page posted, in order, across its reloads
    this.causes = 0;       // what may make it post: its moves' events, its greetings, a catch-up per page
    this.inputsOver = false;
    this.presenter = this.open("presenter", true, false, TITLE);
    this.students = Array.from({ length: 2 + Math.floor(this.random() * 4) },
                               (_, i) => this.open(`student${i}`, false, this.random() < 0.4, TITLE));
  }

  clock() { return EPOCH + Math.floor(this.now); }
  uniform(lo, hi) { return lo + (hi - lo) * this.random(); }
  pick(list) { return list[Math.floor(this.random() * list.length)]; }

  at(delay, fn) {
    this.events.push({ at: this.now + delay, order: this.order++, fn });
    this.events.sort((a, b) => a.at - b.at || a.order - b.order);
  }

  /** A page opens (or reopens): it asks `hello`, then connects. */
  open(name, presenter, scroll, pos) {
    const page = new Page(this, name, { presenter, scroll, pos });
    if (presenter) this.causes += 1;   // it moved before it heard the hall: once, on its first state
    this.at(this.uniform(5, 300), () => {
      if (!page.alive) return;
      if (!this.server.up) { this.at(1000, () => page.alive && this.reload(page)); return; }   // no hall: the user reloads
      page.helloAnswered = true;
      page.call("found", () => { page.follow.found(); return []; });
      this.connect(page);
    });
    return page;
  }

  reload(page) {
    page.alive = false;
    this.closeStream(page);
    const pos = this.random() < 0.7 ? page.pos : TITLE;   // the URL's #/h/v, or opened anew
    const fresh = this.open(page.name, page.follow.presenter, page.scroll, pos);
    this.log.push(`${this.now} ${page.name} reloads at ${show(pos)}`);
    if (page === this.presenter) this.presenter = fresh;
    else this.students[this.students.indexOf(page)] = fresh;
  }

  // --- the network and the server -------------------------------------------------------------

  post(page, state) {
    assert.ok(page.helloAnswered, `${page.name} posted before a hall answered its hello`);
    this.log.push(`${this.now} ${page.name} posts ${show(state)}`);
    const last = this.published[this.published.length - 1] ?? -Infinity;
    assert.ok(state.seq > last, `the presenter's seq did not grow: ${state.seq} after ${last}`);
    this.published.push(state.seq);
    assert.ok(this.published.length <= this.causes,
              `the presenter's page posted ${this.published.length} times for ${this.causes} moves and greetings`);
    this.at(this.later(page, 1, 40), () => {
      const server = this.server;
      if (!server.up) return;                 // a network error: live.js drops it
      if (server.state && state.seq <= server.state.seq) return;   // 204, not kept
      server.state = state;
      server.kept.push(state);
      for (const stream of server.streams) this.deliver(stream, state, false);
    });
  }

  /** When something sent now on ``channel`` (a stream, a page's POSTs) arrives: in the order
   *  sent (SSE, and POSTs as a browser sends them), except one in ten that arrives late, after
   *  later ones (a stress beyond SSE's order: a proxy, a POST that took another connection). */
  later(channel, lo, hi) {
    const at = this.now + this.uniform(lo, hi);
    if (this.random() < 0.1) return at + this.uniform(0, 200) - this.now;
    channel.last = Math.max(channel.last ?? 0, at);
    return channel.last - this.now;
  }

  /** One event on a stream: in order, sometimes late (reordered), sometimes twice. */
  deliver(stream, state, greeting) {
    const copies = this.random() < 0.08 ? 2 : 1;
    for (let i = 0; i < copies; i++) {
      this.at(this.later(stream, 1, 60), () => {
        if (stream.open && stream.page.alive && stream.page.stream === stream) stream.page.receive(state, greeting && i === 0);
      });
    }
  }

  connect(page) {
    if (!page.alive) return;
    if (!this.server.up) { this.retry(page); return; }
    const stream = { page, open: true };
    page.stream = stream;
    page.attempt = 0;
    this.server.streams.add(stream);
    this.deliver(stream, this.server.state, true);   // the greeting: the state (or none), then devices
  }

  retry(page) {
    const delay = BACKOFF_MS[Math.min(page.attempt, BACKOFF_MS.length - 1)] * (0.5 + this.random() / 2);
    page.attempt += 1;
    this.at(delay, () => this.connect(page));
  }

  closeStream(page) {
    if (!page.stream) return;
    page.stream.open = false;
    this.server.streams.delete(page.stream);
    page.stream = null;
  }

  /** The stream errs (a dropped connection, a stream too slow): live.js reconnects with backoff. */
  drop(page) {
    if (!page.stream) return;
    this.log.push(`${this.now} ${page.name}'s stream drops`);
    this.closeStream(page);
    this.retry(page);
  }

  /** kill -9 and a start again: the state comes back as it was, older (lost commits) or missing. */
  restart() {
    const server = this.server;
    if (!server.up) return;
    server.up = false;
    for (const page of [this.presenter, ...this.students]) this.drop(page);
    const r = this.random();
    const kept = r < 0.5 ? server.state : r < 0.75 ? this.pick([null, ...server.kept]) : null;
    this.log.push(`${this.now} the server restarts with ${show(kept)}`);
    this.at(this.uniform(100, 3000), () => {
      server.up = true;
      server.state = kept;
      server.kept = server.kept.filter((s) => kept && s.seq <= kept.seq);
    });
  }
}

// --- what the users do ------------------------------------------------------------------------

/** The position one step on (reveal.js's next: a fragment, the slide below, the next slide). */
function next(p) {
  const column = DECK[p.indexh];
  if (p.indexf < column[p.indexv] - 1) return { ...p, indexf: p.indexf + 1 };
  if (p.indexv < column.length - 1) return { indexh: p.indexh, indexv: p.indexv + 1, indexf: -1 };
  if (p.indexh < DECK.length - 1) return { indexh: p.indexh + 1, indexv: 0, indexf: -1 };
  return p;
}

/** One step back (reveal.js's prev: into the previous slide with all its fragments shown). */
function prev(p) {
  if (p.indexf > -1) return { ...p, indexf: p.indexf - 1 };
  if (p.indexv > 0) return { indexh: p.indexh, indexv: p.indexv - 1, indexf: DECK[p.indexh][p.indexv - 1] - 1 };
  if (p.indexh > 0) return { indexh: p.indexh - 1, indexv: 0, indexf: DECK[p.indexh - 1][0] - 1 };
  return p;
}

function somewhere(world, p) {
  const r = world.random();
  if (r < 0.45) return next(p);
  if (r < 0.8) return prev(p);
  const indexh = Math.floor(world.random() * DECK.length);
  const indexv = Math.floor(world.random() * DECK[indexh].length);
  return { indexh, indexv, indexf: Math.floor(world.random() * (DECK[indexh][indexv] + 1)) - 1 };
}

/** One random input of the hall: a move, a button, a dropped stream, a reload, a restart. */
function input(world) {
  const r = world.random();
  const student = world.pick(world.students);
  const presenter = world.presenter;
  if (r < 0.32) presenter.userMove(somewhere(world, presenter.pos));
  else if (r < 0.38) {   // two moves in one task (a held key, a slide and its fragment)
    presenter.userMove(somewhere(world, presenter.pos));
    presenter.userMove(somewhere(world, presenter.pos));
  } else if (r < 0.56) student.userMove(somewhere(world, student.pos));
  else if (r < 0.61) { if (student.follow.target) student.userMove(student.follow.target); }   // back by itself
  else if (r < 0.66) student.call("rejoin", () => student.follow.rejoin());   // «Volver con el profesor»
  else if (r < 0.77) world.drop(world.pick([presenter, ...world.students]));
  else if (r < 0.83) world.reload(presenter);
  else if (r < 0.92) world.reload(student);
  else world.restart();
}

/** Random inputs, then run until nothing is left to happen (quiescence). */
function play(world, count) {
  let t = 0;
  for (let i = 0; i < count; i++) {
    t += world.uniform(0, 300);
    world.events.push({ at: t, order: world.order++, fn: () => input(world) });
  }
  world.events.sort((a, b) => a.at - b.at || a.order - b.order);
  let guard = 0;
  while (world.events.length) {
    const event = world.events.shift();
    world.now = Math.max(world.now, event.at);
    event.fn();
    assert.ok(++guard < 200_000, "the hall never quiesces");
  }
}

/** Once quiet: every page is connected; the server holds the presenter's position once it
 *  moved, and every student that follows shows it. */
function checkConverged(world) {
  const p = world.presenter;
  const pages = [p, ...world.students];
  for (const page of pages) assert.ok(page.alive && page.follow.present && page.stream?.open, `${page.name} is not connected`);
  const server = world.server.state;
  const newest = Math.max(...world.students.map((s) => s.accepted));
  // the presenter's position is the hall's once its page moved or published; a reopened presenter
  // page that has not moved shows the last state it took, which is the hall's unless a student
  // holds a newer one (the server lost it before the page reopened: nobody can tell the page)
  const decided = p.follow.moved || p.follow.seq > 0 || (p.follow.target !== null && p.accepted >= newest);
  if (!decided) return false;
  if (p.follow.moved) assert.ok(server && samePlace(server, p.pos, false), `the server holds ${show(server)}, the presenter is at ${show(p.pos)}`);
  for (const s of world.students) {
    if (!s.follow.following) continue;
    assert.ok(samePlace(s.pos, p.pos, s.scroll),
              `${s.name}${s.scroll ? " (scroll view)" : ""} follows but shows ${show(s.pos)}, the presenter ${show(p.pos)}`);
  }
  return true;
}

test(`${SEEDS} random halls: followers converge on the presenter, paused students stay, seqs only grow`, () => {
  const only = process.env.FOLLOW_SEED;
  const seeds = only ? [Number(only)] : Array.from({ length: SEEDS }, (_, i) => i + 1);
  let checked = 0;
  let posts = 0;
  for (const seed of seeds) {
    const world = new World(seed);
    try {
      play(world, 40);
      if (checkConverged(world)) checked += 1;
      posts += world.published.length;
    } catch (error) {
      error.message = `seed ${seed} (replay: FOLLOW_SEED=${seed} node --test tests/js/follow.test.mjs): ` +
                      `${error.message}\n${world.log.slice(-40).join("\n")}`;
      throw error;
    }
  }
  console.log(`# follow: ${seeds.length} interleavings, ${posts} presenter posts, convergence checked in ${checked}`);
});

// --- the exact rules, by example ---------------------------------------------------------------

const at = (indexh, indexv = 0, indexf = -1, scroll = false) => ({ indexh, indexv, indexf, scroll });
const kinds = (decisions) => decisions.map((d) => d.kind);

function student() {
  const f = new Follow();
  f.found();
  return f;
}

function presenter() {
  const f = new Follow({ presenter: true });
  f.found();
  return f;
}

test("a state is checked and completed; a duplicate or an older one changes nothing", () => {
  assert.equal(hallState({ seq: 1.5, indexh: 1 }), null);
  assert.equal(hallState(null), null);
  assert.deepEqual(hallState({ seq: 7, indexh: 3, indexf: 2.5 }), { seq: 7, indexh: 3, indexv: 0, indexf: -1 });
  // a field outside its declared rule (dpdeck/wire/hall.py) is its rule's lowest value
  assert.deepEqual(hallState({ seq: 7, indexh: "3", indexv: -2, indexf: -5 }), { seq: 7, indexh: 0, indexv: 0, indexf: -1 });
  assert.equal(hallState({ seq: -1 }), null);
  const f = student();
  const s = { seq: 10, indexh: 2, indexv: 0, indexf: 1 };
  assert.deepEqual(f.state(s, at(0), 10_050), [{ kind: "apply", state: s, timed: true }, { kind: "status" }]);
  assert.deepEqual(f.state(s, at(2, 0, 1), 10_060), []);                        // duplicate
  assert.deepEqual(f.state({ ...s, seq: 9, indexh: 5 }, at(2, 0, 1), 0), []);  // older
  assert.deepEqual(f.greeting({ ...s, seq: 8 }, at(2, 0, 1), 0), []);         // a restarted server's older state
  assert.deepEqual(f.greeting(null, at(2, 0, 1), 0), []);
  assert.equal(f.target.seq, 10);
});

test("a student pauses when it moves away, resumes on the presenter's slide or with the button", () => {
  const f = student();
  assert.deepEqual(f.localMove(at(4), 0), []);            // no state yet: nothing to leave
  f.state({ seq: 1, indexh: 2, indexv: 0, indexf: 0 }, at(4), 1);
  assert.deepEqual(kinds(f.localMove(at(3), 2)), ["status"]);
  assert.equal(f.following, false);
  const later = { seq: 5, indexh: 6, indexv: 0, indexf: -1 };
  assert.deepEqual(f.state(later, at(3), 5), [{ kind: "status" }]);   // paused: not moved, the button's N changes
  assert.deepEqual(f.state({ ...later, seq: 6 }, at(6), 6), [{ kind: "status" }]);   // even where it already is
  assert.equal(f.following, false);
  assert.deepEqual(kinds(f.localMove(at(6), 7)), ["status"]);   // its own move onto the presenter's slide
  assert.equal(f.following, true);
  f.localMove(at(1), 8);
  assert.deepEqual(f.rejoin(), [{ kind: "apply", state: { ...later, seq: 6 }, timed: false }, { kind: "status" }]);
  assert.equal(f.following, true);
  assert.deepEqual(new Follow().rejoin(), [{ kind: "status" }]);
});

test("in the phones' scroll view a fragment behind follows, one ahead reads ahead; without a hall a move counts for nothing", () => {
  const f = student();
  f.state({ seq: 1, indexh: 2, indexv: 1, indexf: 2 }, at(0), 1);
  assert.deepEqual(f.localMove(at(2, 1, -1, true), 2), []);   // scrolled back within the slide
  assert.equal(f.following, true);
  assert.deepEqual(kinds(f.localMove(at(2, 1, -1, false), 3)), ["status"]);   // the slides view: the fragment counts
  assert.equal(f.following, false);
  const phone = student();
  phone.state({ seq: 1, indexh: 2, indexv: 0, indexf: 0 }, at(0), 1);
  assert.deepEqual(kinds(phone.localMove(at(2, 0, 1, true), 2)), ["status"]);   // a swipe to the next bullet
  assert.equal(phone.following, false);
  // the presenter's next click reaches that bullet: the phone is not moved, it stays on its own
  assert.deepEqual(phone.state({ seq: 2, indexh: 2, indexv: 0, indexf: 1 }, at(2, 0, 1, true), 3), [{ kind: "status" }]);
  assert.deepEqual(phone.state({ seq: 3, indexh: 2, indexv: 0, indexf: 2 }, at(2, 0, 1, true), 4), [{ kind: "status" }]);
  assert.equal(phone.following, false);
  assert.deepEqual(kinds(phone.rejoin()), ["apply", "status"]);   // until it returns
  assert.equal(phone.following, true);
  const absent = new Follow();
  absent.target = { seq: 1, indexh: 0, indexv: 0, indexf: -1 };
  assert.deepEqual(absent.localMove(at(5), 0), []);
  assert.equal(absent.following, true);
});

test("the moves that applying a state causes are not the page's own", () => {
  const f = presenter();
  f.startApply();
  assert.deepEqual(f.localMove(at(3), 100), []);
  f.endApply();
  assert.equal(f.moved, false);
  assert.equal(f.seq, 0);
  const s = student();
  s.state({ seq: 1, indexh: 2, indexv: 0, indexf: 3 }, at(0), 1);
  s.startApply();
  assert.deepEqual(s.localMove(at(2, 0, 1), 2), []);   // reveal.js clamped the fragment: still following
  s.endApply();
  assert.equal(s.following, true);
});

test("the presenter's seq: max(now, last + 1, accepted + 1); before the hall answers a move only counts", () => {
  const f = new Follow({ presenter: true });
  assert.deepEqual(f.localMove(at(1), 1000), []);
  assert.equal(f.moved, true);
  f.found();
  assert.equal(f.localMove(at(2), 1000)[0].state.seq, 1000);
  assert.deepEqual(f.localMove(at(2, 0, 0), 1000), [{ kind: "publish", state: { seq: 1001, indexh: 2, indexv: 0, indexf: 0 } }]);
  assert.equal(f.localMove(at(3), 5000)[0].state.seq, 5000);
  f.state({ seq: 9000, indexh: 0, indexv: 0, indexf: -1 }, at(3), 5001);   // another presenter page's
  assert.equal(f.localMove(at(4), 5002)[0].state.seq, 9001);
});

test("a presenter page that has not moved takes the hall's state; one that moved first publishes on its greeting", () => {
  const reopened = presenter();
  const s = { seq: 50, indexh: 7, indexv: 0, indexf: 1 };
  assert.deepEqual(reopened.greeting(s, at(0), 60), [{ kind: "apply", state: s, timed: false }, { kind: "status" }]);
  assert.deepEqual(kinds(reopened.state({ ...s, seq: 51 }, at(7, 0, 1), 61)), ["apply", "status"]);
  const early = new Follow({ presenter: true });
  early.localMove(at(2), 10);
  early.found();
  assert.deepEqual(early.greeting(s, at(2), 70), [{ kind: "publish", state: { seq: 70, indexh: 2, indexv: 0, indexf: -1 } }, { kind: "status" }]);
  const none = new Follow({ presenter: true });
  none.localMove(at(2), 10);
  none.found();
  assert.deepEqual(kinds(none.greeting(null, at(2), 80)), ["publish"]);   // the server has no state yet
});

test("issue 29: the presenter's own publish coming back never makes it publish again", () => {
  // before: a state older than the page's last publish made it publish, so two moves within a
  // round trip (a held key; reveal.js's fragment and slide events of one step back) kept one
  // publish in flight for ever, each echo answered with a new POST
  const f = presenter();
  const a = f.localMove(at(1, 0, 0), 1000)[0].state;
  const b = f.localMove(at(1, 0, 0), 1000)[0].state;
  assert.deepEqual(f.state(a, at(1, 0, 0), 1010), [{ kind: "status" }]);
  assert.deepEqual(f.state(b, at(1, 0, 0), 1011), [{ kind: "status" }]);
  assert.equal(f.seq, b.seq);
});

test("issue 29: after a restart the presenter's page publishes again what the server lost", () => {
  // before: a greeting no newer than the page's accepted state was dropped, so moves made while
  // the server was away (or states a restart lost) stayed unpublished until the next move
  const f = presenter();
  const a = f.localMove(at(1), 1000)[0].state;
  f.state(a, at(1), 1010);                      // its echo
  f.localMove(at(2), 2000);                     // the server is away: the POST fails
  const again = f.greeting(a, at(2), 3000);     // the restarted server greets with a
  assert.deepEqual(again, [{ kind: "publish", state: { seq: 3000, indexh: 2, indexv: 0, indexf: -1 } }]);
  assert.deepEqual(kinds(f.greeting(null, at(2), 4000)), ["publish"]);   // a server that lost everything
  assert.deepEqual(f.greeting({ ...a, seq: 4000 }, at(2), 4100), [{ kind: "status" }]);   // it has ours: nothing
  const watching = presenter();                 // a presenter page that has not moved shows what it took
  watching.state({ seq: 500, indexh: 3, indexv: 0, indexf: -1 }, at(0), 510);
  assert.deepEqual(kinds(watching.greeting({ seq: 400, indexh: 1, indexv: 0, indexf: -1 }, at(3), 600)), ["publish"]);
  assert.deepEqual(watching.greeting({ seq: 600, indexh: 3, indexv: 0, indexf: -1 }, at(3), 700).map((d) => d.kind), ["apply", "status"]);
});

test("a refused token: the page follows from then on", () => {
  const f = presenter();
  f.localMove(at(1), 10);
  f.dropPresenter();
  assert.deepEqual(f.state({ seq: 20, indexh: 4, indexv: 0, indexf: -1 }, at(1), 30).map((d) => d.kind), ["apply", "status"]);
  assert.deepEqual(kinds(f.localMove(at(5), 40)), ["status"]);
  assert.equal(f.following, false);
});

test("a follower that takes the presenter's link presents: it takes the hall's states until it moves, then publishes", () => {
  const f = new Follow({ presenter: false });
  f.found();
  const here = { indexh: 2, indexv: 0, indexf: -1, scroll: false };
  assert.deepEqual(f.greeting({ seq: EPOCH, indexh: 2, indexv: 0, indexf: -1 }, here, EPOCH + 10).map((d) => d.kind),
                   ["apply", "status"]);
  assert.deepEqual(f.localMove({ ...here, indexh: 3 }, EPOCH + 20), [{ kind: "status" }]);   // paused
  assert.equal(f.following, false);
  f.takePresenter();
  assert.equal(f.presenter, true);
  assert.equal(f.following, true);
  // a state pushed before its first move: it takes it, as a reopened presenter page does
  const pushed = f.state({ seq: EPOCH + 30, indexh: 4, indexv: 0, indexf: -1 }, { ...here, indexh: 3 }, EPOCH + 40);
  assert.deepEqual(pushed.map((d) => d.kind), ["apply", "status"]);
  // its first move publishes, with a seq above every state it took
  const [publish] = f.localMove({ indexh: 5, indexv: 0, indexf: -1, scroll: false }, EPOCH + 35);
  assert.equal(publish.kind, "publish");
  assert.ok(publish.kind === "publish" && publish.state.seq > EPOCH + 30 && publish.state.indexh === 5);
  f.takePresenter();   // a second link: still the presenter, its moves still its own
  assert.equal(f.localMove({ indexh: 6, indexv: 0, indexf: -1, scroll: false }, EPOCH + 50)[0].kind, "publish");
});
