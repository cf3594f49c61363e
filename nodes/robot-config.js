// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-config/robot-config.ts.
module.exports = require("./load-node")("robot-config/robot-config");
