(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-mqtt");
  var mqtt = fleet.tables().mqtt;

  /** A base topic or discovery prefix: levels without wildcards, none empty (the runtime's checkTopicRoot). */
  function topicRoot(v) {
    var text = String(v || "").trim();
    if (text === "") return true;
    return (
      !/[+#]/.test(text) &&
      text.split("/").every(function (level) {
        return level !== "";
      })
    );
  }

  fleet.registerRobotNode("robot-mqtt", {
    color: "#d8bfd8",
    defaults: {
      interval: { value: mqtt.limits.interval.default, validate: fleet.numberValidator("interval", mqtt.limits.interval) },
      serialNumbers: {
        value: "",
        validate: fleet.reasoned(fleet.serialNumberListProblem),
      },
      prefix: { value: mqtt.defaults.prefix, validate: topicRoot },
      base: { value: mqtt.defaults.base, validate: topicRoot },
      accept: { value: mqtt.defaults.accept, validate: fleet.choiceValidator(mqtt.acceptModes, mqtt.defaults.accept) },
      acceptRobots: {
        value: "",
        validate: fleet.reasoned(function (v) {
          var listed = $("#node-input-accept").length ? $("#node-input-accept").val() : this.accept;
          if (listed === "listed" && String(v || "").trim() === "")
            return RED._("node-red-contrib-robot-fleet/robot-mqtt:robot-mqtt.validation.acceptRobots");
          return fleet.serialNumberListProblem(v);
        }),
      },
      startTasks: {
        value: "",
        validate: function (v) {
          return String(v || "")
            .split(/\r?\n/)
            .every(function (line) {
              var at = line.indexOf("=");
              return line.trim() === "" || (at > 0 && line.slice(at + 1).trim() !== "");
            });
        },
      },
    },
    label: function () {
      return this.name || this._("robot-mqtt.paletteLabel");
    },
    oneditprepare: function () {
      var node = this;
      fleet.pickers.serialNumberList("serialNumbers");
      fleet.pickers.serialNumberList("acceptRobots");
      var accept = $("#node-input-accept");
      fleet.options(
        accept,
        mqtt.acceptModes,
        function (mode) {
          return node._("robot-mqtt.accept." + mode);
        },
        node.accept || mqtt.defaults.accept,
      );
      accept.val(node.accept || mqtt.defaults.accept);
      accept.on("change", function () {
        fleet.showRows("robot-mqtt", ["acceptRobots"], accept.val() === "listed" ? ["acceptRobots"] : []);
      });
      accept.trigger("change");
    },
  });
})();
