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
    layer(
      "api-stays-below",
      "src/api is the client any program can use: it imports nothing of the nodes, the simulator or the demo.",
      "^src/api/",
      "^src/(nodes|simulator|demo)/",
    ),
    layer(
      "nodes-stay-below-demo",
      "The node runtimes import nothing of the simulator or the demo.",
      "^src/nodes/",
      "^src/(simulator|demo)/",
    ),
    layer(
      "simulator-stays-below",
      "The simulator uses src/api's tables, nothing of the nodes or the demo.",
      "^src/simulator/",
      "^src/(nodes|demo)/",
    ),
    // Inside the layers, the folders by job:
    layer(
      "api-tables-stay-below",
      "src/api's tables (the cloud's contract, the settings and input rules) are read by the rest of src/api and read nothing of it but the errors.",
      "^src/api/(cloud|settings)/",
      "^src/api/(?!cloud/|settings/|errors\\.ts$)",
    ),
    layer(
      "simulator-maps-stay-below",
      "The simulator's maps and movement are geometry: they read nothing of the server, the world, the pushes or the faults.",
      "^src/simulator/maps/",
      "^src/simulator/(?!maps/)",
    ),
    layer(
      "shared-stays-below-nodes",
      "src/nodes/shared/ is what the nodes share: it imports no node's runtime, only a node's table (plain data, as any node may read it).",
      "^src/nodes/shared/",
      "^src/nodes/(?!shared/)(?![^/]+/table\\.ts$)",
    ),
    {
      name: "node-keeps-to-its-folder",
      comment:
        "A node's folder imports its own files, what the nodes share and another node's table (plain data: the editor's tables gather them), never another node's runtime.",
      severity: "error",
      from: { path: "^src/nodes/([^/]+)/" },
      to: {
        path: "^src/nodes/[^/]+/",
        pathNot: ["^src/nodes/$1/", "^src/nodes/shared/", "^src/nodes/[^/]+/table\\.ts$"],
      },
    },
  ],
  options: {
    includeOnly: "^src/",
    doNotFollow: { path: "node_modules" },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    exclude: { path: "\\.d\\.ts$" },
  },
};
