// ESLint for the page's JS (static/js), its node tests (tests/js, the engines' drivers) and the
// build's node helpers (dpdeck/*.mjs): the recommended rules, with the globals each runs with.
import js from "@eslint/js";
import globals from "globals";

export default [
  { ignores: ["node_modules/", "dist/", "dist-pdf/", "test-results/", "bench/results/", ".venv/"] },
  js.configs.recommended,
  {
    // the folder says which globals apply: page/ (and shared/, which the worker imports too:
    // tsconfig.worker.json checks it against the worker's globals), worker/, serviceworker/
    files: ["static/js/page/**/*.js", "static/js/shared/**/*.js", "dpdeck/serve/watch_client.js"],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    files: ["static/js/worker/**/*.js"],
    languageOptions: { globals: { ...globals.worker } },
  },
  {
    files: ["static/js/serviceworker/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.serviceworker } },
  },
  {
    files: ["tests/js/**/*.mjs", "dpdeck/**/*.mjs", "tests/browser/engines/**/*.{js,mjs}",
            "bench/**/*.{js,mjs}", "eslint.config.mjs"],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_",
                                    caughtErrors: "none" }],
      // one screen of code per function (the Python side: tests/unit/test_lint.py)
      "max-lines-per-function": ["error", { max: 80, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // the engines' in-page scenario is one script evaluated in the page, a sequence of steps
    // each commented; its wrapper is a module, not a function to read at once
    files: ["tests/browser/engines/scenario.js", "tests/browser/engines/phonepage.js"],
    rules: { "max-lines-per-function": "off" },
  },
];
