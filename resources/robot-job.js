(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-job");
  var job = fleet.tables().job;

  /** Placeholders show the runtime's defaults: an empty field takes them. */
  function placeholder(field, setting) {
    $("#node-input-" + field).attr("placeholder", String(setting.default));
  }

  RED.nodes.registerType("robot-job", {
    category: "robot fleet",
    color: "#7fb7df",
    inputs: 1,
    outputs: 2,
    icon: "robot-job.svg",
    defaults: {
      name: { value: "" },
      robot: { value: "", type: "robot-config", required: true },
      work: { value: "", validate: fleet.choiceValidator(job.works, "") },
      map: { value: "" },
      target: { value: "" },
      mode: { value: "" },
      minBattery: { value: "", validate: fleet.numberValidator("minBattery", job.minBattery) },
      waitUpTo: { value: "", validate: fleet.numberValidator("waitUpTo", job.waitUpTo) },
      tries: { value: "", validate: fleet.numberValidator("tries", job.tries) },
      offlineLimit: { value: "", validate: fleet.numberValidator("offlineLimit", job.offlineLimit) },
      confirmTimeout: { value: "", validate: fleet.numberValidator("confirmTimeout", fleet.tables().confirmTimeout) },
    },
    paletteLabel: function () {
      return this._("robot-job.paletteLabel");
    },
    inputLabels: function () {
      return this._("robot-job.inputLabel");
    },
    outputLabels: function (index) {
      return this._(index === 0 ? "robot-job.outputLabels.end" : "robot-job.outputLabels.progress");
    },
    label: function () {
      return this.name || (this.work && this.target ? this.target : this._("robot-job.paletteLabel"));
    },
    oneditprepare: function () {
      var node = this;
      fleet.options(
        $("#node-input-work"),
        job.works,
        function (v) {
          return node._("robot-job.work." + (v || "fromMessage"));
        },
        node.work || "",
      );
      $("#node-input-work")
        .on("change", function () {
          $(".robot-job-row-target").toggle($(this).val() !== "");
        })
        .trigger("change");
      placeholder("minBattery", job.minBattery);
      placeholder("waitUpTo", job.waitUpTo);
      placeholder("tries", job.tries);
      placeholder("offlineLimit", job.offlineLimit);
      placeholder("confirmTimeout", fleet.tables().confirmTimeout);
    },
  });
})();
