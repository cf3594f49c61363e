// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-status/robot-status.ts.
module.exports = require("./load-node")("robot-status/robot-status");
