// Node-RED loads the file listed in package.json; the node is compiled from src/nodes/robot-site-task/robot-site-task.ts.
module.exports = require("../dist/src/nodes/robot-site-task/robot-site-task").default;
