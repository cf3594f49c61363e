(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-upkeep");
  var limits = fleet.tables().upkeep.limits;

  fleet.registerRobotNode("robot-upkeep", {
    defaults: {
      serialNumbers: {
        value: "",
        validate: fleet.reasoned(fleet.serialNumberListProblem),
      },
      every: { value: limits.every.default, validate: fleet.numberValidator("every", limits.every) },
      partDue: { value: limits.partDue.default, validate: fleet.numberValidator("partDue", limits.partDue) },
      cleanWaterBelow: {
        value: limits.cleanWaterBelow.default,
        validate: fleet.numberValidator("cleanWaterBelow", limits.cleanWaterBelow),
      },
      recoveryWaterAbove: {
        value: limits.recoveryWaterAbove.default,
        validate: fleet.numberValidator("recoveryWaterAbove", limits.recoveryWaterAbove),
      },
      batteryHotAbove: {
        value: limits.batteryHotAbove.default,
        validate: fleet.numberValidator("batteryHotAbove", limits.batteryHotAbove),
      },
    },
    outputs: 2,
    label: function () {
      return this.name || this._("robot-upkeep.paletteLabel");
    },
    outputLabels: function (index) {
      return this._(index === 0 ? "robot-upkeep.outputLabels.table" : "robot-upkeep.outputLabels.notices");
    },
    oneditprepare: function () {
      fleet.pickers.serialNumberList("serialNumbers");
    },
  });
})();
