/**
 * The demo's terminal speaks the language its Node-RED runs in: `--lang
 * zh-CN` prints the banner and the stop in Chinese (the addresses as in
 * English), the environment's locale decides without it, English otherwise.
 */
import assert from "node:assert/strict";
import { demoWords } from "../../src/demo/banner";
import { startDemo } from "../support/demo-process";

const FACTS = {
  host: "127.0.0.1",
  port: 1880,
  simulatorUrl: "http://127.0.0.1:18080",
  token: "demo-token",
  mqttPort: 1883,
  sensorTopic: "facility/sensors/kitchen/spill",
  pushUrl: undefined,
  second: undefined,
  userDir: "/tmp/demo",
  kept: false,
  savedAs: undefined,
};

describe("demo: the terminal's language", function () {
  this.timeout(120_000);

  it("takes --lang first, else the locale Node-RED would read (LC_ALL, LC_MESSAGES, LANG), else English", () => {
    const chinese = /机器人车队演示已运行/;
    assert.match(demoWords("zh-CN", {}).banner(FACTS), chinese);
    assert.match(demoWords("zh-CN", { LANG: "en_US.UTF-8" }).banner(FACTS), chinese);
    assert.match(demoWords(undefined, { LANG: "zh_CN.UTF-8" }).banner(FACTS), chinese);
    // Node-RED takes the first of these that is set, as the demo does.
    assert.match(demoWords(undefined, { LC_ALL: "en_US.UTF-8", LANG: "zh_CN.UTF-8" }).banner(FACTS), /Robot fleet demo is running/);
    assert.match(demoWords("en-US", { LANG: "zh_CN.UTF-8" }).banner(FACTS), /Robot fleet demo is running/);
    assert.match(demoWords(undefined, {}).banner(FACTS), /Robot fleet demo is running/);
  });

  it("npm start -- --lang zh-CN prints the banner and the stop in Chinese", async () => {
    const demo = await startDemo({}, ["--lang", "zh-CN"]);
    const code = await demo.stop();
    const output = demo.output();
    assert.equal(code, 0, output.slice(-2000));
    assert.match(output, /机器人车队演示已运行。/);
    assert.match(output, /车队操作台\s+http:\/\/127\.0\.0\.1:\d+\/dashboard/);
    assert.match(output, /正在停止演示……/);
    assert.match(output, /已在 \d+ 毫秒内停止：所有端口均已释放。/);
    assert.doesNotMatch(output, /Robot fleet demo is running|Stopping the demo|every port is free/);
  });
});
