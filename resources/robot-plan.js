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
    field("at", "70px", item.at).on("change keyup", function () {
      markTime($(this));
    });
    field("every", "60px", item.every);
    field("until", "70px", item.until).on("change keyup", function () {
      markTime($(this));
    });
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

  /** A calendar date "YYYY-MM-DD" that exists, as the runtime's isCalendarDate (src/api/plans/plan.ts) reads it. */
  function isCalendarDate(text) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) return false;
    var at = Date.parse(text + "T00:00:00Z");
    return isFinite(at) && new Date(at).toISOString().indexOf(text) === 0;
  }

  /** A zone the browser's Intl knows, as the runtime's Luxon (which asks Intl) does; empty is the runtime's zone. */
  function timezoneProblem(node, v) {
    var zone = String(v || "").trim();
    if (zone === "") return true;
    try {
      new Intl.DateTimeFormat("en-US", { timeZone: zone });
      return true;
    } catch {
      return node._("robot-plan.validation.timezone", { value: zone });
    }
  }

  /** The skip dates as the dialog keeps them (a text, or a list from a message-set flow): the first that is no date. */
  function skipDatesProblem(node, v) {
    var entries = Array.isArray(v) ? v : String(v || "").split(/[\s,]+/);
    for (var index = 0; index < entries.length; index++) {
      var entry = String(entries[index]).trim();
      if (entry !== "" && !isCalendarDate(entry)) return node._("robot-plan.validation.skipDate", { value: entry });
    }
    return true;
  }

  /** The first item whose time is no "HH:MM[:SS]" (the runtime's pattern), named as the runtime names it: plan[n].at. */
  function planProblem(node, items) {
    var pattern = new RegExp(plan.timeOfDayPattern);
    var list = Array.isArray(items) ? items : [];
    for (var index = 0; index < list.length; index++) {
      var item = list[index] || {};
      var fields = ["at", "until"];
      for (var f = 0; f < fields.length; f++) {
        var value = item[fields[f]];
        if ((fields[f] === "at" || (value !== undefined && value !== "")) && !pattern.test(String(value === undefined ? "" : value)))
          return node._("robot-plan.validation.time", {
            field: "plan[" + index + "]." + fields[f],
            item: item.name || "",
            value: value === undefined ? "" : value,
          });
      }
    }
    return true;
  }

  /** Marks a row's time field as the dialog's other fields are marked while typing. */
  function markTime(input) {
    var value = String(input.val() || "").trim();
    var bad = (input.hasClass("robot-plan-at") || value !== "") && !new RegExp(plan.timeOfDayPattern).test(value);
    input.toggleClass("input-error", bad);
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
      plan: {
        value: [],
        validate: fleet.reasoned(function (v) {
          return planProblem(this, v);
        }),
      },
      timezone: {
        value: "",
        validate: fleet.reasoned(function (v) {
          return timezoneProblem(this, v);
        }),
      },
      lateBy: { value: "", validate: fleet.numberValidator("lateBy", plan.lateBy) },
      site: { value: "" },
      customer: { value: "" },
      contractor: { value: "" },
      skipDates: {
        value: "",
        validate: fleet.reasoned(function (v) {
          return skipDatesProblem(this, v);
        }),
      },
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
