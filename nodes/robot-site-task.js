// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-site-task/robot-site-task.ts.
module.exports = require("./load-node")("robot-site-task/robot-site-task");
