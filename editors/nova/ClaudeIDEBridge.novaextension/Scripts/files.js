// File helpers over nova.fs and nova.workspace.openFile.

"use strict";

/** exists reports whether path exists. */
function exists(path) {
  return nova.fs.access(path, nova.fs.F_OK);
}

/** mkdirs creates dir and its missing parents. */
function mkdirs(dir) {
  if (!dir || exists(dir)) return;
  mkdirs(nova.path.dirname(dir));
  nova.fs.mkdir(dir);
}

/** writeText replaces path's contents with text (UTF-8). */
function writeText(path, text) {
  const file = nova.fs.open(path, "w");
  try {
    file.write(text);
  } finally {
    file.close();
  }
}

/** removeTree deletes path, and everything under it when it is a directory. */
function removeTree(path) {
  const st = nova.fs.stat(path);
  if (!st) return;
  if (st.isDirectory()) {
    for (const name of nova.fs.listdir(path)) removeTree(nova.path.join(path, name));
    nova.fs.rmdir(path);
  } else {
    nova.fs.remove(path);
  }
}

/**
 * openEditor opens path in Nova and returns its TextEditor, or null. Nova's
 * openFile has been seen to resolve null on a first call for a file that
 * opens fine on the second, so it is tried twice.
 */
async function openEditor(path) {
  const editor = await nova.workspace.openFile(path);
  if (editor) return editor;
  return nova.workspace.openFile(path);
}

module.exports = { exists, mkdirs, writeText, removeTree, openEditor };
