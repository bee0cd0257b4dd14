// A CodeMirror 6 editor for one cell: Python highlighting, Shift+Enter runs, Escape leaves.
import { basicSetup, EditorView } from "codemirror";
import { python } from "@codemirror/lang-python";
import { keymap } from "@codemirror/view";
import { Prec } from "@codemirror/state";

export function createEditor(parent, doc, { onRun, onChange, label }) {
  const runKeys = Prec.highest(keymap.of([
    { key: "Shift-Enter", run: () => { onRun(); return true; } },
    { key: "Mod-Enter", run: () => { onRun(); return true; } },
  ]));
  const escape = EditorView.domEventHandlers({
    keydown(event, view) {
      if (event.key === "Escape") {
        // leave the editor; the deck's keys work again (and Escape does not reach reveal.js)
        event.stopPropagation();
        event.preventDefault();
        view.contentDOM.blur();
        return true;
      }
      // keys typed in the editor are the editor's, never the deck's
      event.stopPropagation();
      return false;
    },
  });
  const view = new EditorView({
    doc,
    parent,
    extensions: [
      runKeys, escape, basicSetup, python(),
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
