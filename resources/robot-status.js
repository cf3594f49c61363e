(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-status");
  var status = fleet.tables().status;
  var limits = status.watchLimits;

  function watching(node) {
    var box = $("#node-input-watch");
    return box.length ? box.is(":checked") : node.watch === true || node.watch === "true";
  }

  fleet.registerRobotNode("robot-status", {
    defaults: {
      operation: {
        value: "fleetStatus",
        validate: fleet.choiceValidator(status.operations),
      },
      serialNumbers: {
        value: "",
        validate: fleet.reasoned(fleet.serialNumberListProblem),
      },
      fleetOutput: {
        value: "each",
        validate: fleet.choiceValidator(status.fleetOutputs, "each"),
      },
      line: {
        value: "v1",
        validate: fleet.choiceValidator(status.lines, "v1"),
      },
      watch: { value: false },
      watchMoves: { value: false },
      interval: { value: limits.interval.default, validate: fleet.numberValidator("interval", limits.interval) },
      batteryStep: { value: limits.batteryStep.default, validate: fleet.numberValidator("batteryStep", limits.batteryStep) },
      batteryLow: { value: limits.batteryLow.default, validate: fleet.numberValidator("batteryLow", limits.batteryLow) },
    },
    outputs: 2,
    label: function () {
      if (this.name) return this.name;
      if (watching(this)) return this._("robot-status.labels.watch");
      return this.operation ? this._("robot-status.labels." + this.operation) : this._("robot-status.paletteLabel");
    },
    outputLabels: function (index) {
      return this._(index === 0 ? "robot-status.outputLabel" : "robot-status.offlineLabel");
    },
    oneditprepare: function () {
      var node = this;
      fleet.pickers.serialNumberList("serialNumbers");
      fleet.options(
        $("#node-input-operation"),
        status.operations,
        function (v) {
          return node._("robot-status.operations." + v);
        },
        node.operation || "fleetStatus",
      );
      fleet.options(
        $("#node-input-line"),
        status.lines,
        function (v) {
          return node._("robot-status.lines." + v);
        },
        node.line || "v1",
      );
      fleet.options(
        $("#node-input-fleetOutput"),
        status.fleetOutputs,
        function (v) {
          return node._("robot-status.fleetOutputs." + v);
        },
        node.fleetOutput || "each",
      );
      function toggle() {
        var watch = $("#node-input-watch").is(":checked");
        var operation = $("#node-input-operation").val();
        $(".robot-status-row-operation").toggle(!watch);
        $(".robot-status-row-serialNumber").toggle(!watch && fleet.has(status.needSerialNumber, operation));
        $(".robot-status-row-serialNumbers, .robot-status-row-line").toggle(watch || operation === "fleetStatus");
        $(".robot-status-row-fleetOutput").toggle(!watch && operation === "fleetStatus");
        $(".robot-status-row-watch-settings").toggle(watch);
      }
      $("#node-input-watch, #node-input-operation").on("change", toggle);
      toggle();
    },
  });
})();
