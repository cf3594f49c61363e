// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-reports/.
module.exports = require("./load-node")("robot-reports");
