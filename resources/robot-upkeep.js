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
      cleanWaterLow: { value: limits.cleanWaterLow.default, validate: fleet.numberValidator("cleanWaterLow", limits.cleanWaterLow) },
      recoveryWaterHigh: {
        value: limits.recoveryWaterHigh.default,
        validate: fleet.numberValidator("recoveryWaterHigh", limits.recoveryWaterHigh),
      },
      hottestCell: { value: limits.hottestCell.default, validate: fleet.numberValidator("hottestCell", limits.hottestCell) },
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
