// Answers to the bridge's requests that read or drive Nova's editors
// (docs/editor-protocol.md, "bridge → editor"). Positions are UTF-16.

"use strict";

const { offsetAt, lineCount } = require("./positions.js");
const { editorFor, documentFor, fullText, selectionOf } = require("./editors.js");
const files = require("./files.js");

/**
 * makeHandlers returns method → handler(params) for the bridge's requests.
 * isStaged(path) hides staged proposals from Claude; permissions asks Claude's questions.
 */
function makeHandlers({ proposals, permissions }) {
  const isStaged = (p) => proposals.isStaged(p);

  return {
    async openFile(params) {
      const filePath = params && params.filePath;
      if (typeof filePath !== "string") throw new Error("openFile needs filePath");
      let editor = editorFor(filePath);
      // Nova opens files only in front; an open file asked for in the
      // background is left where it is.
      if (!editor || params.makeFrontmost !== false) {
        if (!nova.fs.stat(filePath)) throw new Error(`${filePath} does not exist`);
        editor = await files.openEditor(filePath);
      }
      if (!editor) throw new Error(`Nova could not open ${filePath}`);
      const text = fullText(editor.document);
      if (params.selection) {
        const start = offsetAt(text, params.selection.start);
        const end = offsetAt(text, params.selection.end);
        editor.selectedRange = new Range(start, end);
        editor.scrollToPosition(start);
      }
      const result = { lineCount: lineCount(text) };
      if (editor.document.syntax) result.languageId = editor.document.syntax;
      return result;
    },

    getOpenEditors() {
      const active = nova.workspace.activeTextEditor;
      const seen = new Set();
      const editors = [];
      for (const editor of nova.workspace.textEditors) {
        const doc = editor.document;
        if (!doc.path || isStaged(doc.path) || seen.has(doc.path)) continue;
        seen.add(doc.path);
        editors.push({
          filePath: doc.path,
          isActive: !!active && active.document.path === doc.path,
          isDirty: doc.isDirty,
          languageId: doc.syntax || "plaintext",
          label: nova.path.basename(doc.path),
        });
      }
      return { editors };
    },

    getCurrentSelection() {
      const editor = nova.workspace.activeTextEditor;
      if (!editor || isStaged(editor.document.path)) return { selection: null };
      return { selection: selectionOf(editor) };
    },

    checkDocumentDirty(params) {
      const doc = documentFor(params && params.filePath);
      if (!doc) return { isOpen: false, isDirty: false, isUntitled: false };
      return { isOpen: true, isDirty: doc.isDirty, isUntitled: doc.isUntitled };
    },

    async saveDocument(params) {
      const editor = editorFor(params && params.filePath);
      if (!editor) return { isOpen: false, saved: false };
      await editor.save();
      return { isOpen: true, saved: !editor.document.isDirty };
    },

    async setBufferText(params) {
      const filePath = params && params.filePath;
      if (typeof filePath !== "string" || typeof params.text !== "string") {
        throw new Error("setBufferText needs filePath and text");
      }
      const editor = editorFor(filePath) || (await files.openEditor(filePath));
      if (!editor) throw new Error(`Nova could not open ${filePath}`);
      // Left modified on purpose: the user decides whether to save.
      await editor.edit((e) => e.replace(new Range(0, editor.document.length), params.text));
      return {};
    },

    showDiff: (params) => proposals.show(params),
    closeDiff: (params) => proposals.close(params),
    diffText: (params) => proposals.text(params),
    askPermission: (params) => permissions.ask(params),
  };
}

/** capabilities is what the extension declares in initialize. */
const capabilities = {
  openFile: true,
  showDiff: true,
  diffText: true,
  canCloseTabs: false,
  getOpenEditors: true,
  getCurrentSelection: true,
  checkDocumentDirty: true,
  saveDocument: true,
  setBufferText: true,
  // An extension reads only its own IssueCollection, and Nova has no notebook API.
  getDiagnostics: false,
  executeCode: false,
};

module.exports = { makeHandlers, capabilities };
