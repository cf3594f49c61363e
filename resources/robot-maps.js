(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-maps");
  var maps = fleet.tables().maps;

  function operationOf(node) {
    var select = $("#node-input-operation");
    return select.length && select.val() ? select.val() : node.operation;
  }

  fleet.registerRobotNode("robot-maps", {
    defaults: {
      operation: {
        value: "listMaps",
        validate: fleet.choiceValidator(maps.operations),
      },
      // Optional in the dialog: msg.payload.mapId may give it (the runtime names it when neither does).
      mapId: {
        value: "",
        validate: fleet.typedValidator("mapId", {
          when: function (node) {
            return fleet.has(maps.needMap, operationOf(node));
          },
        }),
      },
      mapIdType: { value: "str" },
    },
    label: function () {
      return this.name || (this.operation ? this._("robot-maps.labels." + this.operation) : this._("robot-maps.paletteLabel"));
    },
    oneditprepare: function () {
      var node = this;
      // Unlike the other nodes' map fields, an empty one here means msg.payload.mapId.
      $("#node-input-mapId").attr("placeholder", node._("robot-maps.placeholder.mapId"));
      fleet.typedInput("mapId", "str");
      fleet.pickers.map("mapId", "mapId");
      fleet.options(
        $("#node-input-operation"),
        maps.operations,
        function (v) {
          return node._("robot-maps.operations." + v);
        },
        node.operation || "listMaps",
      );
      $("#node-input-operation")
        .on("change", function () {
          $(".robot-maps-row-mapId").toggle(fleet.has(maps.needMap, $(this).val()));
          // The fleet view is the whole account's: no robot to name.
          $(".robot-maps-row-serialNumber").toggle($(this).val() !== "fleetView");
        })
        .trigger("change");
    },
  });
})();
