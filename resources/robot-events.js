(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  var events = fleet.tables().events;

  /** The URL the cloud is to post to, as this browser reaches Node-RED (the maker registers it). */
  function pushUrl(path) {
    var root = String(RED.settings.httpNodeRoot || "/").replace(/\/+$/, "");
    return window.location.protocol + "//" + window.location.host + root + (path || events.defaultPath);
  }

  // Node-RED gives the definition its catalogue (definition._) on registering; a validator can be called on a
  // node object that has no `_` of its own (RED.editor.validateNode of an imported or probed node).
  var definition = {
    category: "robot fleet",
    color: "#7fb7df",
    // The input lists and acknowledges the account's alarms; the cloud's pushes come over HTTP.
    inputs: 1,
    // The third (scheduling tasks) came last, so flows wired to the first two keep their meaning.
    outputs: 3,
    icon: "robot-events.svg",
    defaults: {
      name: { value: "" },
      path: {
        value: events.defaultPath,
        // Empty listens on the default path, as the runtime reads it (the placeholder and the URL line say so).
        validate: fleet.reasoned(function (v) {
          return fleet.isEmpty(v) || new RegExp(events.pathPattern).test(String(v).trim()) || definition._("robot-events.validation.path");
        }),
      },
      minLevel: { value: "", validate: fleet.choiceValidator(events.minLevels, "") },
      // Optional: the account whose open alarms and task reports this node records (robot-job, fleetMap).
      robot: { value: "", type: "robot-config", required: false },
    },
    credentials: { appId: { type: "password" } },
    paletteLabel: function () {
      return this._("robot-events.paletteLabel");
    },
    inputLabels: function () {
      return this._("robot-events.inputLabel");
    },
    outputLabels: function (index) {
      return this._("robot-events.outputLabels." + ["incidents", "taskReports", "schedulingTasks"][index]);
    },
    label: function () {
      return this.name || this.path || this._("robot-events.paletteLabel");
    },
    oneditprepare: function () {
      var node = this;
      fleet.options(
        $("#node-input-minLevel"),
        events.minLevels,
        function (level) {
          return level === "" ? node._("robot-events.minLevel.all") : level + " – " + node._("robot-events.levels." + level);
        },
        node.minLevel || "",
      );
      $("#node-input-path")
        .on("input change", function () {
          $(".robot-events-url-value").text(pushUrl(String($(this).val()).trim()));
        })
        .trigger("change");
    },
  };
  RED.nodes.registerType("robot-events", definition);
})();
