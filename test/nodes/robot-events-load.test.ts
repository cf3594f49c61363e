/**
 * robot-events at fleet size: a push service sending 1,000 pushes a second
 * for 10 s (incidents raised and recovered across 200 robots, task reports,
 * one in ten a repeated delivery) to a real embedded Node-RED in a child
 * process (test/support/events-runtime-child.ts). Every push is answered 2xx,
 * every distinct push is sent on exactly once and no repeat at all, and the
 * heap after the first seconds stays flat. Rates are printed, not asserted
 * (shared machines are noisy).
 */
import assert from "node:assert/strict";
import { fork, type ChildProcess } from "node:child_process";
import http from "node:http";
import path from "node:path";
import { EVENTS_APP_ID } from "../support/events-runtime-child";

const PUSHES_PER_SECOND = 1000;
const SECONDS = 10;
const ROBOTS = 200;
/** Heap may grow by this much after warm-up: the receiver's bounded memory fills in these 10 s, nothing else may stay. */
const HEAP_GROWTH_LIMIT_BYTES = 8 * 1024 * 1024;

interface Report {
  heapBytes: number;
  sentOn: number;
  repeated: number;
  wrongOutput: number;
}

/** The n-th distinct push, and the key it is sent on as: robot n % 200; a raise, its recovery, or (every fifth) a task report. */
function pushNumber(n: number): { key: string; body: string } {
  const serialNumber = `GS-L-${String(n % ROBOTS).padStart(4, "0")}`;
  if (n % 5 === 4) {
    const taskReport = { id: `r${n}`, taskEndStatus: n % 4, cleaningMode: "洗地", actualCleaningAreaSquareMeter: 50, startTime: 1_764_000_000_000 + n, endTime: 1_764_000_600_000 + n };
    return { key: `report-r${n}`, body: JSON.stringify({ appId: EVENTS_APP_ID, payload: { serialNumber, modelTypeCode: "S1", taskReport }, pushTime: n }) };
  }
  // 0 and 2 raise an incident, 1 and 3 recover the one raised just before.
  const incidentId = `inc-${n - (n % 2)}`;
  const raised = n % 2 === 0;
  const content = { incidentCode: 4011, incidentName: "Bumper", incidentLevel: "H4", incidentId, incidentStatus: raised ? 1 : 0, startTime: 1_764_000_000_000, endTime: raised ? 0 : 1_764_000_060_000 };
  return { key: `${incidentId}/${raised ? 1 : 0}`, body: JSON.stringify({ appId: EVENTS_APP_ID, payload: { serialNumber, modelTypeCode: "S1", content } }) };
}

describe("robot-events at fleet size", function () {
  this.timeout(120_000);
  let child: ChildProcess;
  let port = 0;
  const ask = () =>
    new Promise<Report>((resolve) => {
      child.once("message", (report: Report) => resolve(report));
      child.send("report");
    });

  before(async () => {
    child = fork(path.join(__dirname, "../support/events-runtime-child.js"), [], { execArgv: ["--expose-gc"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    port = await new Promise<number>((resolve, reject) => {
      child.once("message", (message: { port: number }) => resolve(message.port));
      child.once("exit", (code) => reject(new Error(`the Node-RED child ended with ${code}`)));
    });
  });
  after(async () => {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.send("stop");
    await exited;
  });

  it(`answers ${PUSHES_PER_SECOND} pushes a second for ${SECONDS} s with 2xx, sends each distinct push once, and keeps the heap flat`, async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 32 });
    const answers = new Map<number, number>();
    let failures = 0;
    const send = (body: string) =>
      new Promise<void>((resolve) => {
        const options = { host: "127.0.0.1", port, path: "/robot-events", method: "POST", agent, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) } };
        const request = http.request(options, (response) => {
          response.resume();
          response.on("end", () => {
            answers.set(response.statusCode ?? 0, (answers.get(response.statusCode ?? 0) ?? 0) + 1);
            resolve();
          });
        });
        request.on("error", () => {
          failures++;
          resolve();
        });
        request.end(body);
      });

    const total = PUSHES_PER_SECOND * SECONDS;
    const distinct = new Set<string>();
    const pending = new Set<Promise<void>>();
    let sent = 0;
    let distinctCount = 0;
    let warmUp: Report | undefined;
    const started = Date.now();
    while (sent < total) {
      const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * PUSHES_PER_SECOND));
      for (; sent < due; sent++) {
        // Every tenth is a repeated delivery of one of the last seven pushes.
        const push = sent % 10 === 9 ? pushNumber(Math.max(0, distinctCount - 1 - (sent % 7))) : pushNumber(distinctCount++);
        distinct.add(push.key);
        const sending = send(push.body).finally(() => pending.delete(sending));
        pending.add(sending);
      }
      if (!warmUp && Date.now() - started >= 2000) warmUp = await ask();
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await Promise.all(pending);
    const seconds = (Date.now() - started) / 1000;
    agent.destroy();
    let end = await ask();
    for (let tries = 0; end.sentOn < distinct.size && tries < 50; tries++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      end = await ask();
    }

    const mb = (bytes: number) => (bytes / 1048576).toFixed(1);
    console.log(
      `      ${total} pushes in ${seconds.toFixed(1)} s (${Math.round(total / seconds)}/s), ${distinct.size} distinct; ` +
        `Node-RED heap after warm-up ${mb(warmUp!.heapBytes)} MB, at the end ${mb(end.heapBytes)} MB`,
    );
    assert.equal(failures, 0, "no connection failed");
    assert.deepEqual([...answers], [[200, total]], "every push answered 200");
    assert.equal(end.sentOn, distinct.size, "every distinct push was sent on");
    assert.equal(end.repeated, 0, "none twice");
    assert.equal(end.wrongOutput, 0, "incidents on output 1, reports on output 2");
    assert.ok(end.heapBytes - warmUp!.heapBytes < HEAP_GROWTH_LIMIT_BYTES, `heap grew by ${mb(end.heapBytes - warmUp!.heapBytes)} MB`);
  });
});
