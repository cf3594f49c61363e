(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-reports");
  var limits = fleet.tables().reports.limits;

  /** An IANA time zone this browser knows; empty is the runtime's zone. */
  function timeZoneProblem(v) {
    if (fleet.isEmpty(v)) return true;
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: String(v).trim() });
      return true;
    } catch {
      return fleet.t("validation.unknown", { value: v });
    }
  }

  fleet.registerRobotNode("robot-reports", {
    defaults: {
      serialNumbers: {
        value: "",
        validate: fleet.reasoned(fleet.serialNumberListProblem),
      },
      every: { value: limits.every.default, validate: fleet.numberValidator("every", limits.every) },
      since: { value: limits.since.default, validate: fleet.numberValidator("since", limits.since) },
      keep: { value: limits.keep.default, validate: fleet.numberValidator("keep", limits.keep) },
      timeZone: { value: "", validate: fleet.reasoned(timeZoneProblem) },
    },
    outputs: 2,
    label: function () {
      return this.name || this._("robot-reports.paletteLabel");
    },
    outputLabels: function (index) {
      return this._(index === 0 ? "robot-reports.outputLabels.reports" : "robot-reports.outputLabels.figures");
    },
    oneditprepare: function () {
      fleet.pickers.serialNumberList("serialNumbers");
    },
  });
})();
