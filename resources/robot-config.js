(function () {
  var fleet = RED.plugins.getPlugin("robot-fleet-editor");
  /** The account's settings, in the runtime's order, with their bounds and defaults (src/api/settings/input-rules.ts). */
  var SETTINGS = fleet.tables().accountSettings;
  var LIMITS = Object.keys(SETTINGS);
  /** How each limit looks; its words are in the robot-config catalogue (limits.<name>.label, unit, hint). */
  var ICONS = {
    timeout: "fa-clock-o",
    maxRetries: "fa-repeat",
    connections: "fa-plug",
    rateLimit: "fa-tachometer",
    queueLimit: "fa-list-ol",
    maxRetryWait: "fa-hourglass-half",
    robotListInterval: "fa-address-book",
    arrivalRadius: "fa-crosshairs",
  };

  /**
   * One row per limit, in place of the template's <div data-robot-config-limits>. Text inputs,
   * not type="number": the value is exactly what was typed (a number input turns "abc" into "",
   * which would read as "the default"), and ${ENV_VAR} works as in core nodes.
   */
  function limitRows() {
    return LIMITS.map(function (name) {
      var id = "node-config-input-" + name;
      var words = "robot-config.limits." + name;
      return (
        '<div class="form-row robot-config-limit">' +
        '<label for="' +
        id +
        '"><i class="fa ' +
        (ICONS[name] || "fa-sliders") +
        '"></i> <span data-i18n="' +
        words +
        '.label"></span></label>\n' +
        '<input type="text" id="' +
        id +
        '" inputmode="' +
        (SETTINGS[name].integer ? "numeric" : "decimal") +
        '" autocomplete="off">\n' +
        '<span class="robot-config-unit" data-i18n="' +
        words +
        '.unit"></span>\n' +
        '<span class="robot-config-hint" data-i18n="' +
        words +
        '.hint"></span>' +
        "</div>"
      );
    }).join("\n");
  }
  fleet.onTemplate("robot-config", function (template) {
    template.html(template.html().replace("<div data-robot-config-limits></div>", limitRows()));
  });

  var defaults = {
    name: { value: "" },
    baseUrl: {
      value: "https://openapi.gs-robot.com",
      required: true,
      validate: fleet.reasoned(fleet.baseUrlProblem),
    },
    authMode: { value: "token" },
    // Empty: the account is not shared (the runtime loads no Redis module).
    redisUrl: {
      value: "",
      validate: fleet.reasoned(function (v) {
        return fleet.isEmpty(v) || redisUrlProblem(v);
      }),
    },
    redisPrefix: { value: "", validate: fleet.reasoned(redisPrefixProblem) },
  };

  /** The runtime's Redis URL rules (REDIS_URL_RULES). */
  function redisUrlProblem(v) {
    return fleet.urlProblem(v, fleet.tables().redis.url, "validation.redisUrl", "validation.redisUrlParts");
  }

  function redisPrefixProblem(v) {
    if (fleet.isEmpty(v)) return true;
    return new RegExp(fleet.tables().redis.prefixPattern).test(String(v).trim()) || fleet.t("validation.redisPrefix");
  }
  LIMITS.forEach(function (name) {
    // A default of 0 would be skipped when the editor creates a config node: empty means the same to the runtime.
    defaults[name] = { value: SETTINGS[name].default || "", validate: fleet.numberValidator(name, SETTINGS[name]) };
  });

  /**
   * The Test button: lists the robots through the deployed config (GET
   * robot-fleet/config/<id>/test, never cached) and says how many and how
   * long the account took, or why it could not.
   */
  function testAccount(node) {
    var result = $("#robot-config-test-result").removeClass("robot-config-test-problem").text(node._("robot-config.test.running"));
    var started = Date.now();
    $.ajax({ url: "robot-fleet/config/" + encodeURIComponent(node.id) + "/test", dataType: "json", cache: false }).then(
      function (answer) {
        var words = answer.robots === 1 ? "robot-config.test.oneRobot" : "robot-config.test.robots";
        result.text(node._(words, { count: answer.robots, milliseconds: answer.milliseconds }));
      },
      function (xhr) {
        result.addClass("robot-config-test-problem").text(fleet.problemText(xhr) + " (" + (Date.now() - started) + " ms)");
      },
    );
  }

  RED.nodes.registerType("robot-config", {
    category: "config",
    icon: "robot-config.svg",
    defaults: defaults,
    credentials: {
      token: { type: "password" },
      clientId: { type: "text" },
      clientSecret: { type: "password" },
      accessKeySecret: { type: "password" },
      redisPassword: { type: "password" },
    },
    label: function () {
      return this.name || (this.baseUrl || "robot cloud").replace(/^https?:\/\//, "");
    },
    oneditprepare: function () {
      var node = this;
      $("#node-config-input-authMode")
        .on("change", function () {
          var clientCredentials = $(this).val() === "clientCredentials";
          $(".robot-config-token").toggle(!clientCredentials);
          $(".robot-config-client").toggle(clientCredentials);
        })
        .trigger("change");
      // An emptied field shows what the runtime will use instead.
      LIMITS.forEach(function (name) {
        $("#node-config-input-" + name).attr(
          "placeholder",
          fleet.t("placeholder.default", { value: Number(SETTINGS[name].default).toLocaleString() }),
        );
      });
      $("#node-config-input-redisPrefix").attr("placeholder", fleet.tables().redis.defaultPrefix);
      // The password and prefix matter only once there is a Redis URL.
      $("#node-config-input-redisUrl")
        .on("input change", function () {
          $(".robot-config-redis").toggle(!fleet.isEmpty($(this).val()));
        })
        .trigger("change");
      $("#robot-config-test").on("click", function (event) {
        event.preventDefault();
        testAccount(node);
      });
    },
  });
})();
