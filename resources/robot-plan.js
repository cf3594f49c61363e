(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  fleet.expandTemplate("robot-plan");
  var plan = fleet.tables().plan;
  /** The fields of an item the table's columns show; any other (near, robots, mode, minBattery, waitUpTo) is in "more". */
  var SHOWN = ["name", "days", "at", "every", "until", "map", "task", "area", "goto"];

  function daysText(days) {
    return Array.isArray(days) ? days.join(",") : days || "daily";
  }

  function daysOf(text) {
    var trimmed = String(text || "").trim();
    if (trimmed === "" || trimmed === "daily") return "daily";
    return trimmed.split(/[\s,]+/).filter(function (day) {
      return day !== "";
    });
  }

  /** One row of the plan's table: an input per column, the work as a choice. */
  function addRow(container, item, node) {
    var row = $("<div/>", { class: "robot-plan-row" }).css({ display: "flex", gap: "4px", "flex-wrap": "wrap" }).appendTo(container);
    function field(key, width, value) {
      return $("<input/>", { type: "text", class: "robot-plan-" + key, placeholder: node._("robot-plan.column." + key) })
        .css("width", width)
        .attr("title", node._("robot-plan.column." + key))
        .val(value === undefined ? "" : String(value))
        .appendTo(row);
    }
    field("name", "110px", item.name);
    field("days", "120px", daysText(item.days));
    field("at", "70px", item.at);
    field("every", "60px", item.every);
    field("until", "70px", item.until);
    var kind =
      plan.works.filter(function (work) {
        return item[work] !== undefined;
      })[0] || "area";
    var work = $("<select/>", { class: "robot-plan-work" }).appendTo(row);
    fleet.options(
      work,
      plan.works,
      function (v) {
        return node._("robot-plan.work." + v);
      },
      kind,
    );
    field("map", "90px", item.map);
    field("target", "110px", item[kind]);
    var more = {};
    Object.keys(item).forEach(function (key) {
      if (SHOWN.indexOf(key) < 0) more[key] = item[key];
    });
    field("more", "100%", Object.keys(more).length ? JSON.stringify(more) : "").attr("placeholder", node._("robot-plan.placeholder.more"));
  }

  /** The item a row stands for; the runtime checks it whole on deploy (a bad plan shows in the node's status). */
  function itemOf(row) {
    var text = function (key) {
      return String(row.find(".robot-plan-" + key).val() || "").trim();
    };
    var item = { name: text("name"), days: daysOf(text("days")), at: text("at"), map: text("map") };
    if (text("every") !== "") item.every = Number(text("every"));
    if (text("until") !== "") item.until = text("until");
    item[row.find(".robot-plan-work").val()] = text("target");
    if (text("more") !== "") {
      try {
        $.extend(item, JSON.parse(text("more")));
      } catch {
        // Kept as text: the runtime refuses it by name (plan[n].more), the dialog does not guess.
        item.more = text("more");
      }
    }
    return item;
  }

  RED.nodes.registerType("robot-plan", {
    category: "robot fleet",
    color: "#7fb7df",
    inputs: 1,
    outputs: 3,
    icon: "robot-plan.svg",
    defaults: {
      name: { value: "" },
      robot: { value: "", type: "robot-config", required: true },
      plan: { value: [] },
      timezone: { value: "" },
      lateBy: { value: "", validate: fleet.numberValidator("lateBy", plan.lateBy) },
      skipDates: { value: "" },
    },
    paletteLabel: function () {
      return this._("robot-plan.paletteLabel");
    },
    inputLabels: function () {
      return this._("robot-plan.inputLabel");
    },
    outputLabels: function (index) {
      return this._("robot-plan.outputLabels." + ["settled", "progress", "answers"][index]);
    },
    label: function () {
      return this.name || this._("robot-plan.paletteLabel");
    },
    oneditprepare: function () {
      var node = this;
      $("#node-input-lateBy").attr("placeholder", String(plan.lateBy.default));
      $("#node-input-plan-container")
        .css({ "min-height": "200px", "min-width": "560px" })
        .editableList({
          addItem: function (container, index, item) {
            addRow(container, item, node);
          },
          removable: true,
          sortable: true,
        });
      (Array.isArray(node.plan) ? node.plan : []).forEach(function (item) {
        $("#node-input-plan-container").editableList("addItem", item);
      });
    },
    oneditsave: function () {
      var items = [];
      $("#node-input-plan-container")
        .editableList("items")
        .each(function () {
          items.push(itemOf($(this).find(".robot-plan-row")));
        });
      this.plan = items;
    },
    oneditresize: function (size) {
      var rows = $("#dialog-form>div:not(.node-input-plan-container-row)");
      var height = size.height;
      rows.each(function () {
        height -= $(this).outerHeight(true);
      });
      $("#node-input-plan-container").editableList("height", Math.max(200, height - 30));
    },
  });
})();
