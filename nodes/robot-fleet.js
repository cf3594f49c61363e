// The editor plugin beside this file (robot-fleet.html) holds what the robot dialogs share; registering it loads its catalogue.
module.exports = (RED) => RED.plugins.registerPlugin("robot-fleet-editor", { type: "robot-fleet-editor" });
