// The layers of src/ and no import circles (type-only imports count: they tie files together as much):
// src/api knows nothing of Node-RED, the simulator or the demo; the node runtimes know nothing of the
// simulator or the demo; the simulator uses src/api's tables and nothing above them. Run by npm run lint.
"use strict";

const layer = (name, comment, from, to) => ({ name, comment, severity: "error", from: { path: from }, to: { path: to } });

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment: "An import circle (type-only imports included): split the shared part into a module of its own.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    layer("api-stays-below", "src/api is the client any program can use: it imports nothing of the nodes, the simulator or the demo.", "^src/api/", "^src/(nodes|simulator|demo)/"),
    layer("nodes-stay-below-demo", "The node runtimes import nothing of the simulator or the demo.", "^src/nodes/", "^src/(simulator|demo)/"),
    layer("simulator-stays-below", "The simulator uses src/api's tables, nothing of the nodes or the demo.", "^src/simulator/", "^src/(nodes|demo)/"),
  ],
  options: {
    includeOnly: "^src/",
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "\\.d\\.ts$" },
  },
};
