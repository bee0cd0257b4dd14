// The seeded random source of the JS model tests (scheduler, follow): mulberry32, small and good
// enough to pick interleavings; a failing seed replays the same run.

/** @param {number} seed @returns {() => number} uniform in [0, 1) */
export function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
