// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-upkeep/.
module.exports = require("./load-node")("robot-upkeep");
