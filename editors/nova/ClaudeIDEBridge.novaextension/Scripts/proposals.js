// Proposals shows Claude's openDiff as an editable proposal, since Nova has no
// diff view an extension can open: the proposed text is staged in a file in
// the extension's storage and opened in a tab. Saving that tab accepts the
// diff with the saved text (the user's edits included); closing it without
// saving rejects it. The original file is never written: Claude writes it.
//
// Nova cannot close tabs, so when a diff ends (closeDiff) the staged file is
// removed and the user is told the tab may be closed.

"use strict";

const { sameFile, documentFor, fullText } = require("./editors.js");
const files = require("./files.js");
const { agentTitle } = require("./text.js");

class Proposals {
  /**
   * request(method, params) sends an editor→bridge request; tell(title, body)
   * shows the user a notice; dir is where proposals are staged.
   */
  constructor({ request, tell, dir }) {
    this.request = request;
    this.tell = tell;
    this.dir = dir;
    this.byTab = new Map(); // tabName -> entry
    this.seq = 0;
    // A crash can leave stale proposals behind; they belong to no diff now.
    files.removeTree(dir);
  }

  /** isStaged reports whether path is a staged proposal. */
  isStaged(path) {
    return !!path && nova.path.normalize(path).startsWith(nova.path.normalize(this.dir) + "/");
  }

  /** show handles the bridge's showDiff request. */
  async show(params) {
    const { tabName, filePath, newContents, proposal, agent } = params || {};
    if (typeof tabName !== "string" || typeof filePath !== "string" || typeof newContents !== "string") {
      throw new Error("showDiff needs tabName, filePath and newContents");
    }
    const name = nova.path.basename(filePath);
    const doc = documentFor(filePath);
    if (doc && doc.isDirty) {
      throw new Error(`${name} has unsaved changes in Nova; save or revert them first`);
    }

    const old = this.byTab.get(tabName);
    if (old && old.editor && !old.decided) {
      // Same diff again: show the new proposal in the tab already open.
      const editor = old.editor;
      await editor.edit((e) => e.replace(new Range(0, editor.document.length), newContents));
      // From now on the tab shows the new proposal, and a decision names it.
      old.proposal = proposal;
      return {};
    }
    if (old) this.discard(old);

    this.seq += 1;
    const dir = nova.path.join(this.dir, String(this.seq));
    const stagedPath = nova.path.join(dir, name);
    files.mkdirs(dir);
    files.writeText(stagedPath, newContents);
    const editor = await files.openEditor(stagedPath);
    if (!editor) {
      files.removeTree(dir);
      throw new Error(`Nova could not open the proposed ${name}`);
    }
    // proposal: the bridge's number of the proposal shown (showDiff's "proposal"); every
    // decision names it, so one that crosses a same-name replacement is refused, never taken
    // for the new proposal (docs/editor-protocol.md, diffAccepted).
    // who: the agent proposing it (showDiff's "agent"), named in what the user is told.
    const who = agentTitle(agent);
    const entry = { tabName, filePath, name, dir, stagedPath, editor: null, subs: [], decided: null, proposal, who };
    this.byTab.set(tabName, entry);
    this.bind(entry, editor);
    this.tell(
      `${who} proposes a change to ${name}`,
      "Review and edit the proposal, then save it (⌘S) to accept or close its tab to reject."
    );
    return {};
  }

  bind(entry, editor) {
    entry.editor = editor;
    entry.subs = [
      editor.onDidSave(() => this.accept(entry)),
      editor.onDidDestroy((e) => this.destroyed(entry, e || editor)),
    ];
  }

  unbind(entry) {
    for (const s of entry.subs) s.dispose();
    entry.subs = [];
    entry.editor = null;
  }

  async accept(entry) {
    // Only the first save decides; the bridge keeps the accepted text.
    if (entry.decided || !entry.editor) return;
    entry.decided = "accepted";
    const contents = fullText(entry.editor.document);
    try {
      await this.request("diffAccepted", { tabName: entry.tabName, proposal: entry.proposal, contents });
    } catch (err) {
      entry.decided = null;
      this.tell(`Could not accept the change to ${entry.name}`, errorText(err));
    }
  }

  destroyed(entry, editor) {
    // Another editor (a split) may still show the proposal.
    const other = nova.workspace.textEditors.find(
      (e) => e !== editor && sameFile(e.document.path, entry.stagedPath)
    );
    this.unbind(entry);
    if (other) {
      this.bind(entry, other);
      return;
    }
    if (entry.decided || !this.byTab.has(entry.tabName)) return;
    entry.decided = "rejected";
    this.request("diffRejected", { tabName: entry.tabName, proposal: entry.proposal }).catch((err) => {
      console.error(`diffRejected ${entry.tabName}: ${errorText(err)}`);
    });
  }

  /** text answers diffText: the proposal's tab text now, the user's edits included; null when none is open. */
  text(params) {
    const entry = this.byTab.get(params && params.tabName);
    return { text: entry && entry.editor ? fullText(entry.editor.document) : null };
  }

  /** close handles the bridge's closeDiff request: idempotent, unknown names answer {}. */
  close(params) {
    const entry = this.byTab.get(params && params.tabName);
    if (!entry) return {};
    const editor = entry.editor;
    this.byTab.delete(entry.tabName);
    this.unbind(entry);
    if (!editor) {
      files.removeTree(entry.dir);
      return {};
    }
    // The proposal goes now; its folder stays until the tab closes, so a
    // save of the leftover tab still has somewhere to go.
    if (files.exists(entry.stagedPath)) nova.fs.remove(entry.stagedPath);
    const sub = editor.onDidDestroy(() => {
      sub.dispose();
      files.removeTree(entry.dir);
    });
    const why =
      entry.decided === "accepted"
        ? `${entry.who} has your accepted version of ${entry.name}.`
        : `${entry.who} no longer waits for the proposal to ${entry.name}.`;
    this.tell(why, "Nova does not let extensions close tabs: close the proposal tab yourself; saving it changes nothing.");
    return {};
  }

  discard(entry) {
    this.byTab.delete(entry.tabName);
    this.unbind(entry);
    files.removeTree(entry.dir);
  }

  /** dispose forgets every proposal and removes the staged files. */
  dispose() {
    for (const entry of Array.from(this.byTab.values())) this.discard(entry);
    files.removeTree(this.dir);
  }
}

function errorText(err) {
  if (!err) return "unknown error";
  return err.message || err.errorReason || String(err);
}

module.exports = { Proposals, errorText };
