// The page's features as plugins, registered by id as reveal.js registers its own: each feature
// module exports `plugin = {id, init(deck)}`, and deck.js lists the ids with their modules. The
// modules load together, at once; once reveal.js is ready each plugin's `init` runs, in the
// list's order, handed the page's context (context.js). A module that does not load, holds no
// plugin of its id, or whose `init` throws is reported by its id, and the others still start:
// a broken feature costs that feature, not the deck.

/** @typedef {import("./context.js").DeckContext} DeckContext */
/** @typedef {import("./context.js").Bound} Bound */

/**
 * A feature of the page: ``id`` names it (in the registry, in reports), ``init(deck)`` installs
 * it on the page's context once reveal.js is ready and returns what ``unbind()`` removes
 * (context.js); a plugin may return more than a ``Bound`` (``B``) for deck.js to expose.
 * @template {Bound} [B=Bound]
 * @typedef {{id: string, init(deck: DeckContext): B | Promise<B>}} DeckPlugin
 */

/** One entry of the registry: a plugin's id and how its module loads (a dynamic import).
 *  @typedef {{id: string, load: () => Promise<{plugin?: DeckPlugin<any>}>}} PluginEntry */

/** What started and what did not: each started plugin's ``Bound`` and each failure, by id, in
 *  the registry's order.
 *  @typedef {{started: Map<string, Bound>, failed: Map<string, unknown>}} PluginReport */

/** A plugin the registry names but its module does not hold. */
export class MissingPlugin extends Error {
  /** @param {string} id @param {unknown} [cause] */
  constructor(id, cause) {
    super(`plugin "${id}" is missing: its module ${cause ? "did not load" : "exports no plugin of that id"}`,
          { cause });
    this.name = "MissingPlugin";
    this.id = id;
  }
}

/**
 * Register ``entries`` (their ids unique: a repeated id is a programming error, thrown here) and
 * start loading every module now, so that they load while the page does the rest. ``start``
 * then inits each plugin in the entries' order, each once its module is in; ``report(id,
 * error)`` is told of each one that is missing or whose ``init`` failed (default: the console).
 * @param {PluginEntry[]} entries
 * @returns {{ids: string[], start(deck: DeckContext,
 *                                  options?: {report?: (id: string, error: unknown) => void}): Promise<PluginReport>}}
 */
export function registerPlugins(entries) {
  const ids = entries.map((e) => e.id);
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice !== undefined) throw new Error(`plugin "${twice}" is registered twice`);
  const loading = entries.map(({ id, load }) => {
    /** @type {Promise<DeckPlugin<any>>} */
    const found = Promise.resolve().then(load).then(
      (module) => {
        const plugin = module?.plugin;
        if (!plugin || plugin.id !== id || typeof plugin.init !== "function") throw new MissingPlugin(id);
        return plugin;
      },
      (error) => { throw new MissingPlugin(id, error); });
    found.catch(() => {});   // reported by start(), not as an unhandled rejection meanwhile
    return { id, found };
  });
  return {
    ids,
    async start(deck, { report = defaultReport } = {}) {
      /** @type {PluginReport} */
      const out = { started: new Map(), failed: new Map() };
      for (const { id, found } of loading) {
        try {
          out.started.set(id, await (await found).init(deck));
        } catch (error) {
          out.failed.set(id, error);
          report(id, error);
        }
      }
      return out;
    },
  };
}

/** @param {string} id @param {unknown} error */
function defaultReport(id, error) {
  console.error(`deck.js: plugin "${id}" did not start`, error);
}

/**
 * Await every promise of ``promises`` together (as ``Promise.all``), each answer under its own
 * name, not at a position: ``await loadAll({cell: import("./cell.js")})`` gives ``{cell}``.
 * @template {Record<string, Promise<unknown>>} T
 * @param {T} promises
 * @returns {Promise<{[K in keyof T]: Awaited<T[K]>}>}
 */
export async function loadAll(promises) {
  const names = Object.keys(promises);
  const values = await Promise.all(Object.values(promises));
  return /** @type {{[K in keyof T]: Awaited<T[K]>}} */ (Object.fromEntries(names.map((name, i) => [name, values[i]])));
}
