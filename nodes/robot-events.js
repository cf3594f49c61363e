// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-events/robot-events.ts.
module.exports = require("./load-node")("robot-events/robot-events");
