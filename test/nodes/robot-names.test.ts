/**
 * Robots by name through real Node-RED, against the simulator, whose statuses
 * carry no name (as the recorded real ones: test/simulator/recorded-shapes.test.ts):
 * the console's rows and floors (fleetView), fleetMap's labels, robot-job's
 * end, robot-reports' rows and robot-mqtt's device all show the robot list's
 * display name, model and software version. Then against a recording cloud:
 * a robot added to the list after the start gets its name within one status
 * round of a watching node.
 */
import { useSimulator } from "../support/simulator";
import assert from "node:assert/strict";
import robotJob from "../../src/nodes/robot-job";
import robotMaps from "../../src/nodes/robot-maps/robot-maps";
import robotMqtt from "../../src/nodes/robot-mqtt";
import robotReports from "../../src/nodes/robot-reports";
import robotStatus from "../../src/nodes/robot-status/robot-status";
import type { FleetView } from "../../src/nodes/robot-maps/fleet-view";
import { DEMO_TOKEN, demoFleet } from "../../src/simulator";
import { collectMessages, flowWith, helper, loadFlow, nextMessage, useNodeRed, useRecordingServerAndNodeRed, waitFor, type FlowNode } from "../support/node-red";
import { robotMapsNode } from "../support/fixtures";

const LOBBY = "GS-S-000101";
const KITCHEN = "GS-S-000102";
/** The simulator's robot list: names, model codes and versions, which its statuses do not carry. */
const LISTED = new Map(demoFleet().robots.map((robot) => [robot.serialNumber, robot]));
const nameOf = (serialNumber: string) => LISTED.get(serialNumber)!.displayName;

/** What node `id` sends to the helper `outId` when asked once. */
async function answerOf(id: string, outId: string): Promise<Record<string, unknown>> {
  const answer = nextMessage(outId);
  helper.getNode(id).receive({ payload: "tick" });
  return (await answer);
}

describe("robots by name: statuses without names, the robot list's names everywhere", function () {
  this.timeout(60_000);

  describe("against the simulator", () => {
    const cloud = useSimulator({ timing: { taskDurationMs: 4000 } }, true);
    useNodeRed();

    async function load(): Promise<void> {
      const nodes: FlowNode[] = [
        robotMapsNode("view", { operation: "fleetView", serialNumber: "", mapId: "", wires: [["view-out"]] }),
        robotMapsNode("map", { operation: "fleetMap", serialNumber: LOBBY, mapId: "", wires: [["map-out"]] }),
        { id: "job", type: "robot-job", robot: "config", minBattery: 0, waitUpTo: 30, tries: 3, confirmTimeout: 10, wires: [["job-out"], []] },
        { id: "reports", type: "robot-reports", robot: "config", serialNumbers: "", every: 15, since: 7, keep: 90, timeZone: "UTC", wires: [[], ["figures"]] },
        { id: "bridge", type: "robot-mqtt", robot: "config", interval: 5, serialNumbers: "", prefix: "homeassistant", base: "robot-fleet", startTasks: "", wires: [["mqtt-out"]] },
        ...["view-out", "map-out", "job-out", "figures", "mqtt-out"].map((id) => ({ id, type: "helper" })),
        { id: "catch-errors", type: "catch", scope: null, uncaught: false, wires: [["caught"]] },
        { id: "caught", type: "helper" },
      ];
      await loadFlow([robotMaps, robotJob, robotReports, robotMqtt], flowWith(cloud.simulator.url, nodes), { config: { token: DEMO_TOKEN } });
    }

    it("the console's rows and floor labels, fleetMap's labels and legend", async () => {
      await load();
      const view = (await answerOf("view", "view-out")).payload as FleetView;
      assert.deepEqual(
        view.robots.map((robot) => [robot.serialNumber, robot.name]).sort(),
        [...LISTED.keys()].sort().map((serialNumber) => [serialNumber, nameOf(serialNumber)]),
      );
      const floor1 = view.floors.find((floor) => floor.mapName === "Floor 1")!;
      assert.match(floor1.svg, new RegExp(`<title>${nameOf(LOBBY)} \\(${LOBBY}\\)`));
      assert.doesNotMatch(floor1.svg, new RegExp(`<title>${LOBBY} \\(${LOBBY}\\)`), "no robot named by its serial number");

      const drawn = await answerOf("map", "map-out");
      assert.match(drawn.payload as string, new RegExp(`<title>${nameOf(KITCHEN)} \\(${KITCHEN}\\)`));
      const robots = (drawn as unknown as { robots: { serialNumber: string; name: string }[] }).robots;
      assert.equal(robots.find((robot) => robot.serialNumber === KITCHEN)?.name, nameOf(KITCHEN));
    });

    it("robot-job's end, and robot-reports' rows of the task it ran", async () => {
      await load();
      const ends = collectMessages("job-out");
      const caught = collectMessages("caught");
      helper.getNode("job").receive({ payload: { map: "Floor 1", area: "Kitchen", near: "Kitchen door" } });
      await waitFor(() => ends.length + caught.length > 0, 40_000, "the job's end");
      assert.equal(caught.length, 0, JSON.stringify(caught[0]?.error));
      const end = ends[0]!.payload as { serialNumber: string; robotName: string };
      assert.equal(end.serialNumber, KITCHEN);
      assert.equal(end.robotName, nameOf(KITCHEN));

      const figures = collectMessages("figures");
      const today = new Date().toISOString().slice(0, 10);
      helper.getNode("reports").receive({ payload: "sweep" });
      await waitFor(() => figures.length > 0, 10_000, "a sweep's figures");
      const before = figures.length;
      helper.getNode("reports").receive({ payload: { kpi: { from: today, to: today, by: "robot" } } });
      await waitFor(() => figures.length > before, 10_000, "the table");
      const rows = figures.at(-1)!.payload as { serialNumber: string; robotName: string }[];
      const kitchen = rows.find((row) => row.serialNumber === KITCHEN);
      assert.equal(kitchen?.robotName, nameOf(KITCHEN), JSON.stringify(rows));
    });

    it("robot-mqtt's device: the list's name, model code and software version", async () => {
      await load();
      const published = collectMessages("mqtt-out");
      const topic = `homeassistant/device/robot_fleet_${LOBBY}/config`;
      await waitFor(() => published.some((msg) => msg.topic === topic), 15_000, "the lobby robot's device config");
      const config = JSON.parse(published.find((msg) => msg.topic === topic)!.payload as string) as { device: Record<string, unknown> };
      const listed = LISTED.get(LOBBY)!;
      assert.deepEqual(config.device, { identifiers: [LOBBY], name: listed.displayName, serial_number: LOBBY, model: listed.model, sw_version: listed.firmwareVersion });
    });
  });

  describe("a robot the list names only after the start", () => {
    const stub = useRecordingServerAndNodeRed();
    const NEW_ROBOT = "GS-S-000777";

    it("is named within one status round of a watching node", async () => {
      let listed = [{ serialNumber: LOBBY, displayName: "Lobby scrubber" }];
      stub.server.respondWith((request) => {
        const url = new URL(request.path, stub.server.url);
        if (url.pathname === "/v1alpha1/robots") return { body: { robots: listed, total: String(listed.length) } };
        if (url.pathname.endsWith("/status:batchGet")) {
          // Either batch: the v1 one names the robots in the query, the S-line one in a body.
          const names = url.searchParams.getAll("names").length > 0 ? url.searchParams.getAll("names") : (request.body as { names: string[] }).names;
          // A robot of no account has no status: the new one answers once it has joined.
          const onAccount = names.filter((serialNumber) => listed.some((robot) => robot.serialNumber === serialNumber));
          const statuses = onAccount.map((serialNumber) => ({ name: `robots/${serialNumber}`, serialNumber, online: true, taskState: "IDLE", navStatus: "NAVI_IDLE" }));
          return { body: { robotStatuses: statuses, robotStatus: statuses } };
        }
        return { status: 404, body: { code: 5, message: "not stubbed" } };
      });
      const watch: FlowNode = { id: "watch", type: "robot-status", robot: "config", operation: "fleetStatus", watch: true, interval: 5, serialNumbers: `${LOBBY},${NEW_ROBOT}`, wires: [["watched"], []] };
      await loadFlow([robotStatus, robotMaps], flowWith(stub.server.url, [watch, robotMapsNode("view", { operation: "fleetView", serialNumber: "", mapId: "", wires: [["view-out"]] }), { id: "watched", type: "helper" }, { id: "view-out", type: "helper" }]));
      const names = async () => Object.fromEntries(((await answerOf("view", "view-out")).payload as FleetView).robots.map((robot) => [robot.serialNumber, robot.name]));
      await waitFor(() => stub.server.requests.some((request) => request.path.includes("status:batchGet")), 10_000, "the first status round");
      assert.deepEqual(await names(), { [LOBBY]: "Lobby scrubber" });
      // The robot joins the account's list; the next status round names it.
      listed = [...listed, { serialNumber: NEW_ROBOT, displayName: "Night shift sweeper" }];
      const rounds = () => stub.server.requests.filter((request) => request.path.includes("status:batchGet")).length;
      const round = rounds();
      await waitFor(() => rounds() >= round + 1, 8_000, "the next status round");
      await waitFor(() => stub.server.requests.filter((request) => request.path.startsWith("/v1alpha1/robots?")).length >= 2, 3_000, `the list read for the unknown robot: ${stub.server.requests.map((r) => r.method + " " + r.path).join(", ")}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(await names(), { [LOBBY]: "Lobby scrubber", [NEW_ROBOT]: "Night shift sweeper" });
    });
  });
});
