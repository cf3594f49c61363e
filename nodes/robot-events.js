// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-events/robot-events.ts.
module.exports = require("../dist/src/nodes/robot-events/robot-events").default;
