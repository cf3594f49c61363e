// The editor plugin (robot-fleet.html beside this file) holds what every robot node's dialog shares;
// registering it here also makes Node-RED load its message catalogue (locales/<lang>/robot-fleet.json).
module.exports = function (RED) {
  RED.plugins.registerPlugin("robot-fleet-editor", { type: "robot-fleet-editor" });
};
