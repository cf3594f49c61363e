(function () {
  // Tables come from the runtime (RED.settings.robotConfigTables), words from the catalogues, and
  // what every robot dialog shares from the robot-fleet-editor plugin: this file holds no copy of any.
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-command");
  var tables = fleet.tables();
  var catalogue = tables.command;
  var COMMANDS = {};
  catalogue.families.forEach(function (family) {
    family.commands.forEach(function (command) {
      COMMANDS[command.type] = command;
    });
  });
  var LITERAL = catalogue.literalTypes;
  // loop and loopCount have dialog defaults (false, 1); every other parameter of a command is required.
  var HAS_DEFAULT = { loop: true, loopCount: true };

  /** Whether the node's command uses `field`: a field of another command never makes the node invalid. */
  function uses(field) {
    return function (node) {
      var command = COMMANDS[$("#node-input-command").length ? $("#node-input-command").val() : node.command];
      return !!command && command.fields.indexOf(field) !== -1;
    };
  }

  function parameter(field, literal) {
    return {
      value: "",
      validate: fleet.typedValidator(field, {
        type: LITERAL[field],
        when: uses(field),
        required: !HAS_DEFAULT[field],
        label: function () {
          return fleet.t("field." + field);
        },
        literal: literal,
      }),
    };
  }

  var defaults = {
    command: {
      value: "START_TASK",
      validate: fleet.reasoned(function (v) {
        return v === "" || Object.prototype.hasOwnProperty.call(COMMANDS, v) || fleet.t("validation.unknown", { value: v });
      }),
    },
    cleaningMode: Object.assign(parameter("cleaningMode"), { value: "__middle_cleaning" }),
    cleaningModeType: { value: "str" },
    taskName: parameter("taskName"),
    taskNameType: { value: "str" },
    map: parameter("map"),
    mapType: { value: "str" },
    loop: Object.assign(parameter("loop"), { value: "false" }),
    loopType: { value: "bool" },
    loopCount: Object.assign(parameter("loopCount", fleet.numberValidator("loopCount", catalogue.loopCount)), {
      value: catalogue.loopCount.default,
    }),
    loopCountType: { value: "num" },
    position: Object.assign(parameter("position"), { value: "charging" }),
    positionType: { value: "str" },
    direction: Object.assign(
      parameter("direction", function (v) {
        return (
          fleet.has(catalogue.directions, v) || fleet.t("validation.oneOf", { field: "direction", values: catalogue.directions.join(", ") })
        );
      }),
      { value: "FORWARD" },
    ),
    directionType: { value: "direction" },
    burst: {
      value: "all",
      validate: fleet.choiceValidator(catalogue.burstPolicies, "all"),
    },
    sendWhen: {
      value: "accepted",
      validate: fleet.choiceValidator(tables.sendWhen, "accepted"),
    },
    confirmTimeout: { value: "", validate: fleet.numberValidator("confirmTimeout", tables.confirmTimeout) },
    // Flows saved before the setting have neither: one output.
    sentOutput: { value: false },
    outputs: { value: 1 },
  };

  fleet.registerRobotNode("robot-command", {
    defaults: defaults,
    label: function () {
      return this.name || (this.command ? this.command.toLowerCase().replace(/_/g, " ") : this._("robot-command.paletteLabel"));
    },
    outputLabels: function (index) {
      return this._(index === 0 ? "robot-command.outputLabel" : "robot-command.sentOutputLabel");
    },
    oneditprepare: function () {
      var node = this;
      // The editor rewires the node when the hidden outputs field changes: output 2 comes and goes with the checkbox.
      $("#node-input-sentOutput")
        .on("change", function () {
          $("#node-input-outputs").val(this.checked ? 2 : 1);
        })
        .prop("checked", node.sentOutput === true || node.sentOutput === "true")
        .trigger("change");
      ["cleaningMode", "taskName", "map", "position"].forEach(function (field) {
        fleet.typedInput(field, "str");
      });
      fleet.typedInput("loop", "bool");
      fleet.typedInput("loopCount", "num");
      fleet.typedInput("direction", {
        value: "direction",
        label: fleet.t("field.direction"),
        options: catalogue.directions.map(function (d) {
          return { value: d, label: node._("robot-command.directions." + d) };
        }),
      });
      fleet.pickers.map("map", "mapName");
      fleet.pickers.position("position");
      fleet.pickers.cleaningMode("cleaningMode");
      fleet.pickers.task("taskName", { map: "mapName" });

      var select = $("#node-input-command");
      $("<option>").val("").text(node._("robot-command.fromMessage")).appendTo(select);
      catalogue.families.forEach(function (family) {
        var group = $("<optgroup>")
          .attr("label", node._("robot-command.families." + family.family))
          .appendTo(select);
        family.commands.forEach(function (command) {
          $("<option>")
            .val(command.type)
            .text(command.type + " – " + node._("robot-command.commands." + command.type))
            .appendTo(group);
        });
      });
      if (node.command && !COMMANDS[node.command]) {
        select.append(
          $("<option>")
            .val(node.command)
            .text(fleet.t("unknownValue", { value: node.command })),
        );
      }

      fleet.options(
        $("#node-input-burst"),
        catalogue.burstPolicies,
        function (v) {
          return node._("robot-command.burst." + v);
        },
        node.burst || "all",
      );
      fleet.options(
        $("#node-input-sendWhen"),
        tables.sendWhen,
        function (v) {
          return node._("robot-command.sendWhen." + v);
        },
        node.sendWhen || "accepted",
      );
      $("#node-input-confirmTimeout").attr("placeholder", fleet.t("placeholder.default", { value: tables.confirmTimeout.default }));
      $("#node-input-sendWhen")
        .on("change", function () {
          $(".robot-command-row-confirmTimeout").toggle($(this).val() === "shown");
        })
        .trigger("change");

      select
        .on("change", function () {
          var command = $(this).val();
          var rows = command ? (COMMANDS[command] ? COMMANDS[command].fields : []) : catalogue.fields;
          fleet.showRows("robot-command", catalogue.fields, rows);
          $(".robot-command-from-message").toggle(!command);
          $(".robot-command-no-parameters").toggle(!!command && rows.length === 0);
        })
        .val(node.command || "")
        .trigger("change");
    },
  });
})();
