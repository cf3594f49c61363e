(function () {
  // Operations, their fields and the bounds come from the runtime (robotConfigTables.siteTask).
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-site-task");
  var tables = fleet.tables();
  var site = tables.siteTask;
  var ALL_ROWS = [];
  Object.keys(site.fieldsOf).forEach(function (operation) {
    site.fieldsOf[operation].forEach(function (field) {
      if (ALL_ROWS.indexOf(field) === -1) ALL_ROWS.push(field);
    });
  });

  function operationOf(node) {
    var select = $("#node-input-operation");
    return select.length && select.val() ? select.val() : node.operation;
  }
  function bodyFromOf(node) {
    var select = $("#node-input-bodyFrom");
    // A flow saved before the setting existed reads msg.payload when it is a body, else the fields.
    return select.length && select.val() ? select.val() : node.bodyFrom || "auto";
  }
  /** Whether the node's operation builds its body from `field`. */
  function uses(field) {
    return function (node) {
      return fleet.has(site.fieldsOf[operationOf(node)], field) && bodyFromOf(node) !== "payload";
    };
  }
  /** A field the body is built from is required when the node says the fields build it. */
  function requires(field) {
    return function (node) {
      return uses(field)(node) && bodyFromOf(node) === "fields";
    };
  }
  function whenUsed(field, check) {
    return fleet.reasoned(function (v) {
      return !uses(field)(this) || check.call(this, v);
    });
  }

  var defaults = {
    operation: {
      value: "status",
      validate: fleet.choiceValidator(site.operations),
    },
    bodyFrom: {
      value: "fields",
      validate: fleet.choiceValidator(site.bodySources, "auto"),
    },
    floorIndex: {
      value: site.wholeNumbers.floorIndex.default,
      validate: whenUsed("floorIndex", fleet.numberValidator("floorIndex", site.wholeNumbers.floorIndex)),
    },
    loop: { value: false },
    loopCount: {
      value: site.wholeNumbers.loopCount.default,
      validate: whenUsed("loopCount", fleet.numberValidator("loopCount", site.wholeNumbers.loopCount)),
    },
    sendWhen: {
      value: "accepted",
      validate: fleet.choiceValidator(tables.sendWhen, "accepted"),
    },
    confirmTimeout: { value: "", validate: fleet.numberValidator("confirmTimeout", tables.confirmTimeout) },
  };
  site.textFields.forEach(function (field) {
    defaults[field] = {
      value: "",
      validate: fleet.typedValidator(field, {
        when: uses(field),
        required: requires(field),
        label: function () {
          return fleet.t("field." + field);
        },
      }),
    };
    defaults[field + "Type"] = { value: "str" };
  });

  fleet.registerRobotNode("robot-site-task", {
    defaults: defaults,
    label: function () {
      return this.name || (this.operation ? this._("robot-site-task.labels." + this.operation) : this._("robot-site-task.paletteLabel"));
    },
    oneditprepare: function () {
      var node = this;
      site.textFields.forEach(function (field) {
        fleet.typedInput(field, "str");
      });
      fleet.pickers.site("siteId", "siteId", { siteName: "siteName" });
      fleet.pickers.site("siteName", "siteName", { siteId: "siteId" });
      fleet.pickers.site("floorName", "floor", { floorIndex: "index" });
      fleet.pickers.map("mapId", "mapId", { mapName: "mapName" });
      fleet.pickers.map("mapName", "mapName", { mapId: "mapId" });
      fleet.pickers.areaId("areaId", "mapId", { areaName: "areaName" });
      fleet.pickers.cleaningMode("cleaningMode");

      fleet.options(
        $("#node-input-operation"),
        site.operations,
        function (v) {
          return node._("robot-site-task.operations." + v);
        },
        node.operation || "status",
      );
      fleet.options(
        $("#node-input-bodyFrom"),
        site.bodySources,
        function (v) {
          return node._("robot-site-task.bodyFrom." + v);
        },
        node.bodyFrom || "auto",
      );
      fleet.options(
        $("#node-input-sendWhen"),
        tables.sendWhen,
        function (v) {
          return node._("robot-site-task.sendWhen." + v);
        },
        node.sendWhen || "accepted",
      );
      $("#node-input-confirmTimeout").attr("placeholder", fleet.t("placeholder.default", { value: tables.confirmTimeout.default }));

      function temporary() {
        return (site.fieldsOf[$("#node-input-operation").val()] || []).length > 0;
      }
      function showFields() {
        var fromPayload = $("#node-input-bodyFrom").val() === "payload";
        fleet.showRows("robot-site-task", ALL_ROWS, fromPayload ? [] : site.fieldsOf[$("#node-input-operation").val()] || []);
        $(".robot-site-task-row-bodyFrom, .robot-site-task-row-sendWhen").toggle(temporary());
        $("#node-input-sendWhen").trigger("change");
      }
      $("#node-input-operation, #node-input-bodyFrom").on("change", showFields);
      $("#node-input-sendWhen").on("change", function () {
        $(".robot-site-task-row-confirmTimeout").toggle(temporary() && $(this).val() === "shown");
      });
      $("#node-input-operation").trigger("change");
    },
  });
})();
