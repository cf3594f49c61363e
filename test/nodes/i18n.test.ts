import assert from "node:assert/strict";
import type { NodeAPI } from "node-red";
import { translator } from "../../src/nodes/shared/i18n";

/** A runtime whose RED._ answers in "zh" and counts what it was asked. */
function countingRuntime() {
  const asked: string[] = [];
  const RED = {
    _: (key: string, params?: Record<string, unknown>) => {
      asked.push(key);
      return `zh:${key}${params ? JSON.stringify(params) : ""}`;
    },
  } as unknown as NodeAPI;
  return { RED, asked };
}

describe("translator", () => {
  it("asks the runtime once for a text without parameters, every time for one with parameters", () => {
    const { RED, asked } = countingRuntime();
    const t = translator(RED, "robot-command");
    for (let message = 0; message < 1000; message++) assert.equal(t("commandStates.ACCEPTED"), "zh:node-red-contrib-robot-fleet/robot-command:robot-command.commandStates.ACCEPTED");
    assert.equal(asked.length, 1);
    assert.equal(t("status.queued", { count: 3 }), 'zh:node-red-contrib-robot-fleet/robot-command:robot-command.status.queued{"count":3}');
    assert.equal(t("status.queued", { count: 4 }), 'zh:node-red-contrib-robot-fleet/robot-command:robot-command.status.queued{"count":4}');
    assert.equal(asked.length, 3);
  });

  it("keeps at most 1000 texts: a cloud sending ever new values grows no memory", () => {
    const { RED, asked } = countingRuntime();
    const t = translator(RED, "robot-command");
    for (let value = 0; value < 1500; value++) t(`commandStates.VALUE_${value}`);
    assert.equal(asked.length, 1500);
    t("commandStates.VALUE_0");
    t("commandStates.VALUE_1499");
    // The first thousand are remembered, the rest asked again.
    assert.equal(asked.length, 1501);
    assert.equal(asked.at(-1), "node-red-contrib-robot-fleet/robot-command:robot-command.commandStates.VALUE_1499");
  });
});
