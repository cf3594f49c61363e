/**
 * The one drawer of every node's status (src/nodes/shared/node-status-view.ts):
 * at its edges, on a fake clock, with a node that records what it was told to draw.
 */
import assert from "node:assert/strict";
import type { NodeStatus } from "node-red";
import { StatusDrawer } from "../../src/nodes/shared/node-status-view";
import { FakeClock } from "../support/fake-clock";

const INTERVAL_MS = 250;

function setUp(): { clock: FakeClock; drawn: NodeStatus[]; drawer: StatusDrawer; say: (text: string) => void } {
  const clock = new FakeClock(10_000);
  const drawn: NodeStatus[] = [];
  let text = "a";
  const drawer = new StatusDrawer({ status: (status: NodeStatus) => drawn.push(status) }, () => ({ fill: "green", shape: "dot", text }), {
    intervalMs: INTERVAL_MS,
    clock,
  });
  return { clock, drawn, drawer, say: (next) => (text = next) };
}

describe("StatusDrawer", function () {
  it("draws a change at once when nothing was drawn for an interval", function () {
    const { clock, drawn, drawer } = setUp();
    drawer.changed();
    assert.deepEqual(drawn, [{ fill: "green", shape: "dot", text: "a" }]);
    assert.equal(clock.pending, 0, "no timer is left behind");
  });

  it("draws a burst at most once per interval: the first change at once, the last one when the interval is over", async function () {
    const { clock, drawn, drawer, say } = setUp();
    say("1");
    drawer.changed();
    for (let i = 2; i <= 100; i++) {
      await clock.advance(2);
      say(String(i));
      drawer.changed();
    }
    // 198 ms after the first draw: the others wait for the interval.
    assert.deepEqual(
      drawn.map((status) => status.text),
      ["1"],
    );
    assert.equal(clock.pending, 1, "one timer for the whole burst");
    await clock.advance(INTERVAL_MS - 198 - 1);
    assert.equal(drawn.length, 1, "not 1 ms before the interval is over");
    await clock.advance(1);
    assert.deepEqual(
      drawn.map((status) => status.text),
      ["1", "100"],
    );
    assert.equal(clock.pending, 0);
  });

  it("draws a change that comes just as the interval is over at once", async function () {
    const { clock, drawn, drawer, say } = setUp();
    drawer.changed();
    await clock.advance(INTERVAL_MS);
    say("b");
    drawer.changed();
    assert.deepEqual(
      drawn.map((status) => status.text),
      ["a", "b"],
    );
  });

  it("does not draw a status equal to the one shown, and draws it again when asked to redraw", async function () {
    const { clock, drawn, drawer } = setUp();
    drawer.draw();
    await clock.advance(INTERVAL_MS);
    drawer.changed();
    drawer.draw();
    assert.equal(drawn.length, 1);
    drawer.redraw();
    assert.equal(drawn.length, 2);
  });

  it("shows a status of the moment, and the computed one again at the next change", function () {
    const { drawn, drawer } = setUp();
    drawer.draw();
    drawer.show({ fill: "red", shape: "ring", text: "E" });
    drawer.draw();
    assert.deepEqual(
      drawn.map((status) => status.text),
      ["a", "E", "a"],
    );
  });

  it("draws again after `again` ms while it asks to (a countdown), and stops when it does not", async function () {
    const clock = new FakeClock();
    const drawn: NodeStatus[] = [];
    let seconds = 3;
    const drawer = new StatusDrawer({ status: (status: NodeStatus) => drawn.push(status) }, () => ({ text: `${seconds} s` }), {
      intervalMs: INTERVAL_MS,
      clock,
      again: () => (seconds > 0 ? 1000 : undefined),
    });
    drawer.draw();
    for (let i = 0; i < 3; i++) {
      seconds--;
      await clock.advance(1000);
    }
    assert.deepEqual(
      drawn.map((status) => status.text),
      ["3 s", "2 s", "1 s", "0 s"],
    );
    assert.equal(clock.pending, 0);
  });

  it("on close, clears the status and the timer, and draws nothing more", async function () {
    const { clock, drawn, drawer, say } = setUp();
    drawer.changed();
    say("b");
    drawer.changed();
    assert.equal(clock.pending, 1);
    drawer.close();
    assert.equal(clock.pending, 0, "the timer is cleared");
    assert.deepEqual(drawn.at(-1), {});
    await clock.advance(10 * INTERVAL_MS);
    say("c");
    drawer.changed();
    drawer.draw();
    drawer.show({ text: "late" });
    assert.deepEqual(
      drawn.map((status) => status.text),
      ["a", undefined],
    );
  });
});
