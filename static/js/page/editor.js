// A CodeMirror 6 editor for one cell: Python highlighting, Shift+Enter runs, Escape stops a
// running cell or leaves the editor. Keys typed in the editor never reach the deck.
import { basicSetup, EditorView } from "codemirror";
import { python } from "@codemirror/lang-python";
import { keymap } from "@codemirror/view";
import { EditorState, Prec } from "@codemirror/state";
import { HighlightStyle, defaultHighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { closeCompletion, completionStatus } from "@codemirror/autocomplete";
import { EDITOR_PHRASES } from "../shared/phrases.js";

/** CodeMirror's default highlight colours but one: its orange (#e40) for f-strings, escapes and
 *  regular expressions is 3,6:1 on the code's background (#f6f8fa), under the 4,5:1 WCAG AA asks
 *  of text; #b83a00 is 5,4:1 there and 5,0:1 on the active line. deck.css's .tok-string2 (the
 *  static code drawn before the editor) says the same colour. */
const ORANGE = "#e40", LEGIBLE_ORANGE = "#b83a00";
const highlighting = syntaxHighlighting(HighlightStyle.define(
  defaultHighlightStyle.specs.map((spec) => (spec.color === ORANGE ? { ...spec, color: LEGIBLE_ORANGE } : spec))));

export function createEditor(parent, doc, { onRun, onChange, onEscape, label, readOnly = false }) {
  const runKeys = Prec.highest(keymap.of([
    { key: "Shift-Enter", run: (view) => { closeCompletion(view); onRun(); return true; } },   // the list goes too
    { key: "Mod-Enter", run: (view) => { closeCompletion(view); onRun(); return true; } },
  ]));
  const keys = EditorView.domEventHandlers({
    keydown(event, view) {
      event.stopPropagation();   // the deck (reveal.js) never sees keys typed here
      if (event.key === "Escape") {
        event.preventDefault();
        if (completionStatus(view.state) && closeCompletion(view)) return true;   // first closes the list
        if (!onEscape?.()) view.contentDOM.blur();   // stop a running cell, else leave
        return true;
      }
      return false;
    },
  });
  let view;
  view = new EditorView({
    doc,
    parent,
    extensions: [
      runKeys, keys, basicSetup, python(), highlighting,   // not a fallback: basicSetup's is unused
      EditorState.phrases.of(EDITOR_PHRASES),   // the search panel, fold markers… in Spanish
      EditorState.readOnly.of(readOnly),
      EditorView.updateListener.of((u) => { if (u.docChanged) onChange?.(view.state.doc.toString()); }),
      EditorView.contentAttributes.of({ "aria-label": label }),
    ],
  });
  return {
    view,
    get code() { return view.state.doc.toString(); },
    set code(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    focus() { view.focus(); },
  };
}
