// The VS Code side of L0's editor support: highlighting comes from the TextMate grammar
// (syntaxes/l0.tmLanguage.json); everything else from the language server `l0 lsp`
// (docs/tools.md), started over stdio with the command in the setting l0.server.command.
"use strict";

const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const [command, ...args] = vscode.workspace
    .getConfiguration("l0")
    .get("server.command", ["l0", "lsp"]);
  client = new LanguageClient(
    "l0",
    "L0 language server",
    { command, args },
    { documentSelector: [{ scheme: "file", language: "l0" }] },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
