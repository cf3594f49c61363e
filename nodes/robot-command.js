// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-command/robot-command.ts.
module.exports = require("./load-node")("robot-command/robot-command");
