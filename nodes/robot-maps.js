// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-maps/robot-maps.ts.
module.exports = require("./load-node")("robot-maps/robot-maps");
