/*
 * What every robot node's dialog shares: the runtime's tables, the robot and
 * serial-number rows, TypedInputs, validators and the live pickers. Node-RED
 * loads editor plugins before node definitions, so each node's script takes
 * this from RED.plugins.getPlugin("robot-fleet-editor").
 */
(function () {
  var NAMESPACE = "node-red-contrib-robot-fleet/robot-fleet:robot-fleet.";
  var SOURCES = ["msg", "flow", "global", "env"];
  function t(key, params) {
    return RED._(NAMESPACE + key, params);
  }

  /**
   * The runtime's tables (src/nodes/robot-config/editor-tables.ts). robot-config sends them
   * with the editor's settings; without them the runtime did not load
   * robot-config, and no dialog of the package can be drawn.
   */
  function tables() {
    var sent = RED.settings.robotConfigTables;
    if (!sent || typeof sent !== "object") {
      throw new Error("robot-fleet: the runtime sent no robotConfigTables; robot-config did not load (see the Node-RED log)");
    }
    return sent;
  }

  function has(list, value) {
    return Array.isArray(list) && list.indexOf(value) !== -1;
  }

  /** The TypedInput type of a field: the open dialog's, else the node's, else the literal one. */
  function typeOf(node, field, literal) {
    var input = $("#node-input-" + field + "Type");
    return (input.length && input.val()) || node[field + "Type"] || literal || "str";
  }

  function isEmpty(v) {
    return v === undefined || v === null || String(v).trim() === "";
  }

  /**
   * A validator for a TypedInput field. `when(node)` says whether the field is
   * in use (a field of another command or operation never makes the node
   * invalid); an empty typed value is an error when `required`; `literal(v)`
   * checks a typed value, Node-RED checks msg/flow/global/env ones.
   */
  function typedValidator(field, options) {
    options = options || {};
    return function (v, opt) {
      if (options.when && !options.when(this)) return true;
      var type = typeOf(this, field, options.type);
      if (type === (options.type || "str")) {
        if (isEmpty(v)) return options.required ? t("validation.required", { field: options.label ? options.label(this) : field }) : true;
        return options.literal ? options.literal.call(this, v) : true;
      }
      if (isEmpty(v)) return t("validation.sourceEmpty", { type: type });
      return RED.utils.validateTypedProperty(v, type, opt);
    };
  }

  /** A serial number typed in must match the runtime's pattern; empty means "from the message". */
  function serialNumberProblem(v) {
    var pattern = tables().serialNumberPattern;
    if (isEmpty(v) || new RegExp(pattern).test(String(v).trim())) return true;
    return t("validation.serialNumber");
  }

  /** A list of serial numbers ("GS-S-1, GS-S-2"): valid when each entry is one; the reason names the first that is not. */
  function serialNumberListProblem(v) {
    var bad = String(v || "")
      .split(/[\s,;]+/)
      .filter(function (n) {
        return n && serialNumberProblem(n) !== true;
      });
    return bad.length === 0 || t("validation.notSerialNumber", { value: bad[0] });
  }

  /**
   * A validator from a check that returns true or the reason. Node-RED 3 and
   * later read a returned string as "invalid, because ..." only from a
   * validator that declares two parameters, (v, opt): with one, any
   * non-empty string counts as valid. Every validator of the package is two.
   */
  function reasoned(check) {
    return function (v, opt) {
      return check.call(this, v, opt);
    };
  }

  /**
   * The rule of src/api/settings/input-rules.ts (numberProblem) in the editor's
   * language: the problem with a typed number, or undefined. `range` is a
   * NumberRange of the runtime's tables.
   */
  function numberProblem(v, range) {
    var text = typeof v === "number" ? String(v) : typeof v === "string" ? v.trim() : "";
    var n = text === "" ? NaN : Number(text);
    var open = range.max === undefined || range.max === null;
    var words = { min: range.min, max: range.max, unit: range.unit || "" };
    if (!isFinite(n) || (range.integer && Math.floor(n) !== n)) {
      if (range.integer) return t(open ? "validation.wholeNumberAtLeast" : "validation.wholeNumberFrom", words);
      return t(open ? "validation.numberAtLeast" : "validation.numberFrom", words);
    }
    if (n < range.min || (!open && n > range.max)) return t(open ? "validation.atLeast" : "validation.from", words).trim();
    return undefined;
  }

  /** A number setting: empty takes the runtime's default; a reason names the field as the runtime does (or by its label). */
  function numberValidator(field, range) {
    return reasoned(function (v, opt) {
      if (isEmpty(v)) return true;
      var problem = numberProblem(v, range);
      return problem ? (opt && opt.label ? opt.label : field) + ": " + problem : true;
    });
  }

  /** One of the runtime's values for a select; empty takes `fallback`, the runtime's default. */
  function choiceValidator(values, fallback) {
    return reasoned(function (v) {
      return has(values, isEmpty(v) && fallback !== undefined ? fallback : v) || t("validation.unknown", { value: v });
    });
  }

  /**
   * A runtime's URL rules (rules.ts: protocols, forbidden parts), applied with
   * the same URL parser: true, or the words of `wrongKey` (not a URL, or
   * another protocol) or of `partsKey` (a part it must not hold).
   */
  function urlProblem(v, rules, wrongKey, partsKey) {
    var url;
    try {
      url = new URL(String(v).trim());
    } catch {
      return t(wrongKey);
    }
    if (rules.protocols.indexOf(url.protocol) === -1) return t(wrongKey);
    for (var i = 0; i < rules.forbiddenParts.length; i++) {
      if (url[rules.forbiddenParts[i]] !== "") return t(partsKey);
    }
    return true;
  }

  /** The base URL rules of the runtime (BASE_URL_RULES). */
  function baseUrlProblem(v) {
    return urlProblem(v, tables().baseUrl, "validation.baseUrl", "validation.baseUrlParts");
  }

  /** The `defaults` entries every robot node has for choosing its robot. */
  function robotDefaults() {
    return {
      robot: { value: "", type: "robot-config", required: true },
      serialNumber: { value: "", validate: typedValidator("serialNumber", { literal: serialNumberProblem }) },
      serialNumberType: { value: "str" },
    };
  }

  /** Makes #node-input-<field> a TypedInput: its literal type first, then msg, flow, global and env. */
  function typedInput(field, literal) {
    var first = literal || "str";
    var literalType = typeof first === "string" ? first : first.value;
    // A picked value is always typed in: fill() switches the field back to this type.
    $("#node-input-" + field)
      .data("robot-fleet-literal", literalType)
      .typedInput({
        default: literalType,
        types: [first].concat(SOURCES),
        typeField: "#node-input-" + field + "Type",
      });
  }

  // ------------------------------------------------------------------ live pickers

  /** The admin endpoint's path for the robot-config chosen in the open dialog. */
  function configPath() {
    var id = $("#node-input-robot").val();
    return id && id !== "_ADD_" ? "robot-fleet/config/" + encodeURIComponent(id) : null;
  }

  /** A typed-in value of the open dialog, or null when it comes from msg, flow, global or env. */
  function typedValue(field) {
    var input = $("#node-input-" + field);
    if (!input.length) return null;
    var type = input.typedInput("type");
    var value = String(input.typedInput("value") || "").trim();
    return type === "str" && value !== "" ? value : null;
  }

  /** Words for what the endpoint answered, in the editor's language. */
  function problemText(xhr) {
    if (xhr.status === 401) return t("picker.loginNeeded");
    var answer = xhr.responseJSON && xhr.responseJSON.error;
    var code = answer && answer.code;
    switch (code) {
      case "NOT_DEPLOYED":
        return t("picker.deployFirst");
      case "CONNECTION_REFUSED":
        return t("picker.connectionRefused", { host: answer.message });
      case "CREDENTIALS_REFUSED":
        return t("picker.credentialsRefused", { problem: answer.message });
      case "PERMISSION_DENIED":
        return t("picker.permissionDenied");
      case "TIMEOUT":
        return t("picker.timeout", { seconds: answer.message });
      case "NO_ANSWER":
        return t("picker.noAnswer");
      case "CONFIG_PROBLEM":
        return t("picker.configProblem", { problem: answer.message });
      case "INVALID_INPUT":
        return t("picker.invalid", { problem: answer.message });
      case "CLOUD_ERROR":
        return t("picker.cloudError", { problem: answer.message });
      case "INTERNAL_ERROR":
        return t("picker.internalError", { problem: answer.message });
    }
    return xhr.status === 0 ? t("picker.noRuntime") : t("picker.noAnswer");
  }

  /** Adds a value to a list field ("GS-S-1, GS-S-2") unless it is there already. */
  function addToList(field, value) {
    var input = $("#node-input-" + field);
    var names = String(input.val() || "")
      .split(/[\s,;]+/)
      .filter(function (name) {
        return name !== "";
      });
    if (names.indexOf(value) === -1) names.push(value);
    input.val(names.join(", ")).trigger("change");
  }

  /** Sets a TypedInput (or plain input) of the open dialog to a typed-in value. */
  function fill(field, value) {
    var input = $("#node-input-" + field);
    if (!input.length || value === undefined || value === null) return;
    var literal = input.data("robot-fleet-literal");
    if (literal) {
      input.typedInput("type", literal);
      input.typedInput("value", String(value));
    } else {
      input.val(String(value));
    }
    input.trigger("change");
  }

  /**
   * Adds a button beside #node-input-<field> that lists values from the
   * cloud, through the deployed robot-config. `spec.path()` is the lookup
   * below the config ("/robots", "/robots/<sn>/maps") or a message key when
   * something must be chosen first; `spec.entries(answer)` turns the answer
   * into [{label, value, fill: {otherField: value}}]; with `spec.append` a
   * picked value is added to the field's list instead of replacing it.
   */
  function picker(field, spec) {
    var input = $("#node-input-" + field);
    var row = input.closest(".form-row");
    var button = $('<button type="button" class="red-ui-button robot-fleet-pick"><i class="fa fa-caret-down"></i></button>')
      .attr("title", t("picker.title"))
      .attr("data-robot-fleet-picker", field);
    // A TypedInput hides the original input and draws its own box right after it.
    var container = input.next(".red-ui-typedInput-container");
    if (!container.length) container = input;
    container.after(button);
    container.css("width", "calc(70% - 38px)");
    // A field with a picker says so, unless it says something of its own.
    if (!input.attr("placeholder")) input.attr("placeholder", t("placeholder.pick"));
    var message = $('<div class="robot-fleet-picker-message"></div>').attr("data-robot-fleet-picker-message", field).hide();
    row.after(message);

    function show(text, kind) {
      message
        .text(text)
        .toggleClass("robot-fleet-picker-problem", kind === "problem")
        .toggle(!!text);
    }

    button.on("click", function (event) {
      event.preventDefault();
      var base = configPath();
      if (!base) return show(t("picker.chooseConfig"), "problem");
      var path = spec.path();
      if (path.charAt(0) !== "/") return show(t(path), "problem");
      show(t("picker.loading"));
      $.ajax({ url: base + path, dataType: "json", cache: false }).then(
        function (answer) {
          var entries = spec.entries(answer);
          if (!entries.length) return show(t("picker.none"), "problem");
          show("");
          var menu = RED.popover.menu({
            class: "robot-fleet-picker-menu",
            maxHeight: 240,
            width: Math.max(240, container.outerWidth() + button.outerWidth()),
            options: entries.map(function (entry) {
              return {
                label: entry.label,
                onselect: function () {
                  if (spec.append) return addToList(field, entry.value);
                  fill(field, entry.value);
                  Object.keys(entry.fill || {}).forEach(function (other) {
                    fill(other, entry.fill[other]);
                  });
                },
              };
            }),
          });
          // Under the field, from its left edge ("right" is the direction it extends), as its own drop-down.
          menu.show({ target: container, align: "right" });
        },
        function (xhr) {
          show(problemText(xhr), "problem");
        },
      );
    });
  }

  /** What picking `entry` also fills: `also` maps other dialog fields to properties of the entry ({mapName: "mapName"}). */
  function filled(entry, also) {
    var fills = {};
    Object.keys(also || {}).forEach(function (field) {
      fills[field] = entry[also[field]];
    });
    return fills;
  }

  /** The path of a lookup about the robot typed into the dialog, or the message key asking for one. */
  function robotPath(rest) {
    var serial = typedValue("serialNumber");
    if (!serial) return "picker.chooseRobot";
    return "/robots/" + encodeURIComponent(serial) + (rest || "");
  }

  /** "GS-S-000101 – Lobby scrubber (online)". */
  function robotLabel(robot) {
    var state = robot.online === true ? t("picker.online") : robot.online === false ? t("picker.offline") : "";
    return robot.serialNumber + (robot.displayName ? " – " + robot.displayName : "") + (state ? " (" + state + ")" : "");
  }

  /**
   * A cleaning mode as a person reads it: its name without the cloud's "__", then what it means in the
   * editor's language (its kind, or readable words) unless that is the name itself ("尘推" in Chinese).
   */
  function cleaningModeLabel(mode) {
    var name = String(mode.name).replace(/^__/, "");
    var words = mode.kind ? t("cleaningKind." + mode.kind) : mode.words ? t("cleaningMode." + mode.words) : "";
    return words && words !== name ? name + " – " + words : name;
  }

  var PICKERS = {
    serialNumber: function () {
      picker("serialNumber", {
        path: function () {
          return "/robots";
        },
        entries: function (robots) {
          return robots.map(function (robot) {
            return { label: robotLabel(robot), value: robot.serialNumber };
          });
        },
      });
    },
    /** A list of robots (robot-status' serial numbers): each pick adds one. */
    serialNumberList: function (field) {
      picker(field, {
        append: true,
        path: function () {
          return "/robots";
        },
        entries: function (robots) {
          return robots.map(function (robot) {
            return { label: robotLabel(robot), value: robot.serialNumber };
          });
        },
      });
    },
    /** A cleaning mode the robot offers, shown with its meaning. */
    cleaningMode: function (field) {
      picker(field, {
        path: function () {
          return robotPath("/options");
        },
        entries: function (options) {
          return (options.cleaningModes || []).map(function (mode) {
            return { label: cleaningModeLabel(mode), value: mode.name };
          });
        },
      });
    },
    /** A task the robot can run (its status' executableTasks); `also` fills other fields from it ({map: "mapName"}). */
    task: function (field, also) {
      picker(field, {
        path: function () {
          return robotPath("/options");
        },
        entries: function (options) {
          return (options.tasks || []).map(function (task) {
            return {
              label: task.taskName + (task.mapName ? " (" + task.mapName + ")" : ""),
              value: task.taskName,
              fill: filled(task, also),
            };
          });
        },
      });
    },
    /** A map of the robot: `key` ("mapId" or "mapName") is the value the field takes. */
    map: function (field, key, also) {
      picker(field, {
        path: function () {
          return robotPath("/maps");
        },
        entries: function (maps) {
          return maps.map(function (map) {
            return { label: map.mapName + " (" + map.mapId + ")", value: map[key], fill: filled(map, also) };
          });
        },
      });
    },
    /** An area of the map chosen in `mapField`. */
    areaId: function (field, mapField, also) {
      picker(field, {
        path: function () {
          var map = typedValue(mapField);
          if (!map) return "picker.chooseMap";
          return robotPath("/maps/" + encodeURIComponent(map) + "/areas");
        },
        entries: function (areas) {
          return areas.map(function (area) {
            return { label: area.areaName + " (" + area.areaId + ")", value: area.areaId, fill: filled(area, also) };
          });
        },
      });
    },
    /** A navigation point of the robot's status. */
    position: function (field) {
      picker(field, {
        path: function () {
          return robotPath("/options");
        },
        entries: function (options) {
          return (options.positions || []).map(function (name) {
            return { label: name, value: name };
          });
        },
      });
    },
    /** The robot's site: `part` "siteId" or "siteName" (the site), or "floor" (one of its floors, by name). */
    site: function (field, part, also) {
      picker(field, {
        path: function () {
          return robotPath("/site");
        },
        entries: function (site) {
          if (part === "floor") {
            return (site.floors || []).map(function (floor) {
              return { label: floor.floorName + " (" + floor.index + ")", value: floor.floorName, fill: filled(floor, also) };
            });
          }
          return site[part]
            ? [{ label: (site.siteName || "") + " (" + (site.siteId || "") + ")", value: site[part], fill: filled(site, also) }]
            : [];
        },
      });
    },
  };

  // ------------------------------------------------------------------ shared rows of the templates

  var ICONS = {
    robot: "fa-cloud",
    serialNumber: "fa-barcode",
    operation: "fa-cogs",
    cleaningMode: "fa-tint",
    taskName: "fa-tag",
    map: "fa-map-o",
    mapId: "fa-map",
    mapName: "fa-map-o",
    areaId: "fa-th-large",
    areaName: "fa-square-o",
    siteId: "fa-building",
    siteName: "fa-building-o",
    floorIndex: "fa-sort-numeric-asc",
    floorName: "fa-bars",
    position: "fa-map-marker",
    loop: "fa-repeat",
    loopCount: "fa-hashtag",
    sendWhen: "fa-check-circle",
    confirmTimeout: "fa-clock-o",
    name: "fa-tag",
  };
  /** How a row's input looks when the template does not say: most are TypedInputs. */
  var DEFAULT_KIND = { robot: "config", name: "name", operation: "select", sendWhen: "select", confirmTimeout: "seconds" };

  function escapeAttribute(text) {
    return String(text).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  }

  /** The HTML of one row of a robot dialog: `<type>-row-<field>`, its icon, its label from the shared catalogue. */
  function rowHtml(type, field, kind) {
    var id = "node-input-" + field;
    var label =
      field === "name"
        ? '<span data-i18n="node-red:common.label.name"></span>'
        : '<span data-i18n="' + NAMESPACE + "field." + field + '"></span>';
    var input;
    switch (kind) {
      case "config":
        input = '<input type="text" id="' + id + '">';
        break;
      case "name":
        input = '<input type="text" id="' + id + '" data-i18n="[placeholder]node-red:common.label.name">';
        break;
      case "select":
        input = '<select id="' + id + '"></select>';
        break;
      case "checkbox":
        input = '<input type="checkbox" id="' + id + '" class="robot-fleet-inline">';
        break;
      case "number":
        input = '<input type="text" id="' + id + '" class="robot-fleet-inline" style="width: 80px">';
        break;
      case "seconds":
        input =
          '<input type="text" id="' +
          id +
          '" class="robot-fleet-inline" style="width: 80px"> <span data-i18n="' +
          NAMESPACE +
          'unit.confirmTimeout"></span>';
        break;
      default: {
        var placeholder = field === "serialNumber" ? "placeholder.serialNumber" : null;
        input =
          '<input type="text" id="' +
          id +
          '"' +
          (placeholder ? ' data-i18n="[placeholder]' + NAMESPACE + placeholder + '"' : "") +
          ">" +
          '<input type="hidden" id="' +
          id +
          'Type">';
      }
    }
    return (
      '<div class="form-row ' +
      escapeAttribute(type) +
      "-row-" +
      field +
      '">' +
      '<label for="' +
      id +
      '"><i class="fa ' +
      (ICONS[field] || "fa-circle-o") +
      '"></i> ' +
      label +
      "</label>\n" +
      input +
      "</div>"
    );
  }

  /** Replaces each <div data-robot-fleet-rows="robot serialNumber loop:checkbox"> of a template with those rows. */
  function expandRows(type, template) {
    template.html(
      template.html().replace(/<div data-robot-fleet-rows="([^"]*)"><\/div>/g, function (whole, spec) {
        return spec
          .trim()
          .split(/\s+/)
          .map(function (entry) {
            var parts = entry.split(":");
            return rowHtml(type, parts[0], parts[1] || DEFAULT_KIND[parts[0]] || "typed");
          })
          .join("\n");
      }),
    );
  }

  /**
   * Calls `change(template)` with a node type's dialog template once it is in
   * the page. Node-RED runs a node file's script (served from resources/)
   * before it adds the file's templates, and reads a template only when a
   * dialog opens: the change is made as soon as the template arrives, before
   * anyone can open a dialog.
   */
  function onTemplate(type, change) {
    var selector = "script[data-template-name='" + type + "']";
    if ($(selector).length) return change($(selector));
    var observer = new MutationObserver(function () {
      if (!$(selector).length) return;
      observer.disconnect();
      change($(selector));
    });
    observer.observe(document.body, { childList: true, subtree: true });
  }

  /** Draws the shared rows of a node type's template. */
  function expandTemplate(type) {
    onTemplate(type, function (template) {
      expandRows(type, template);
    });
  }

  /** Shows the rows `rows` of the dialog (class <prefix>-row-<name>) and hides the other `all`. */
  function showRows(prefix, all, rows) {
    all.forEach(function (row) {
      $("." + prefix + "-row-" + row).toggle(rows.indexOf(row) !== -1);
    });
  }

  /** Fills a <select> with values and their words from a node's catalogue. */
  function options(select, values, label, keep) {
    select.empty();
    values.forEach(function (value) {
      $("<option>").val(value).text(label(value)).appendTo(select);
    });
    if (keep && values.indexOf(keep) === -1) {
      // An unknown saved value stays visible (and invalid) rather than silently changing.
      $("<option>")
        .val(keep)
        .text(t("unknownValue", { value: keep }))
        .appendTo(select);
    }
    select.val(keep || values[0]);
  }

  /**
   * Registers a robot node type with what they all share: the palette category
   * and colour, one input, its icon (icons/<type>.svg), its palette, input and
   * output labels from its catalogue (<type>.paletteLabel, .inputLabel,
   * .outputLabel), the name and robot rows' defaults, and the serial number's
   * TypedInput and picker. `definition` adds or overrides the rest.
   */
  function registerRobotNode(type, definition) {
    RED.nodes.registerType(
      type,
      Object.assign(
        {
          category: "robot fleet",
          color: "#7fb7df",
          inputs: 1,
          outputs: 1,
          icon: type + ".svg",
          paletteLabel: function () {
            return this._(type + ".paletteLabel");
          },
          inputLabels: function () {
            return this._(type + ".inputLabel");
          },
          outputLabels: function () {
            return this._(type + ".outputLabel");
          },
        },
        definition,
        {
          defaults: Object.assign({ name: { value: "" } }, robotDefaults(), definition.defaults),
          oneditprepare: function () {
            typedInput("serialNumber", "str");
            PICKERS.serialNumber();
            if (definition.oneditprepare) definition.oneditprepare.call(this);
          },
        },
      ),
    );
  }

  RED.plugins.registerPlugin("robot-fleet-editor", {
    type: "robot-fleet-editor",
    t: t,
    tables: tables,
    has: has,
    isEmpty: isEmpty,
    reasoned: reasoned,
    typedValidator: typedValidator,
    serialNumberProblem: serialNumberProblem,
    serialNumberListProblem: serialNumberListProblem,
    numberValidator: numberValidator,
    choiceValidator: choiceValidator,
    baseUrlProblem: baseUrlProblem,
    urlProblem: urlProblem,
    registerRobotNode: registerRobotNode,
    expandTemplate: expandTemplate,
    onTemplate: onTemplate,
    problemText: problemText,
    typedInput: typedInput,
    pickers: PICKERS,
    showRows: showRows,
    options: options,
  });
})();
