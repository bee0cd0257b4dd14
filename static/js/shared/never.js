// The `default:` of a `switch` over a typed union (a message's `type`, a state's `phase`): `tsc`
// accepts the call only where every member was handled before it, so adding a member to the
// union (types.js) without a case for it fails `npm run typecheck`.

/**
 * @param {never} value  what no case handled: a value of a type the union does not have
 * @param {{ignore?: boolean}} [options]  ``ignore``: at run time, let such a value pass (data
 *   from across a boundary, which is not ours alone: a cell's code can post the page any message
 *   with `js.postMessage`, and the page drops what it does not know)
 * @returns {never}
 */
export function assertNever(value, { ignore = false } = {}) {
  if (ignore) return /** @type {never} */ (undefined);
  throw new Error(`unhandled case: ${JSON.stringify(value)?.slice(0, 200)}`);
}
