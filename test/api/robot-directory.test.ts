/**
 * The account's robot directory against a recording cloud on loopback: names,
 * model codes and software versions come from the robot list (no status
 * carries them), read at the start, every interval, and at once for a robot
 * the list did not name (at most once a minute); a redeploy that finds the
 * list fresh does not read it again.
 */
import assert from "node:assert/strict";
import { RobotClient } from "../../src/api/client";
import { RobotDirectory, UNKNOWN_ROBOT_READ_GAP_MS, robotDirectoryOf, robotNameOf } from "../../src/api/account/robot-directory";
import { fleetStatusesOf } from "../../src/api/watching/fleet-statuses";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { useRecordingServer, type RecordedRequest } from "../support/recording-server";
import { sleep, until } from "../support/until";

const LIST_PATH = /^\/v1alpha1\/robots\?/;

/** The robot list as the cloud answers it: one page, with the fields the recorded answers carry. */
function listAnswer(robots: { serialNumber: string; displayName?: string; modelTypeCode?: string; softwareVersion?: string }[]) {
  return { robots: robots.map((robot) => ({ modelFamilyCode: "S", ...robot })), total: String(robots.length) };
}

describe("api: the account's robot directory", function () {
  const stub = useRecordingServer();
  let listed: { serialNumber: string; displayName?: string; modelTypeCode?: string; softwareVersion?: string }[];
  let clients: RobotClient[] = [];
  const listReads = () => stub.server.requests.filter((request: RecordedRequest) => LIST_PATH.test(request.path)).length;

  beforeEach(function () {
    forgetAccountMemory();
    listed = [{ serialNumber: "GS-S-1", displayName: "Lobby scrubber", modelTypeCode: "S1", softwareVersion: "3.8.2" }];
    stub.server.respondWith((request) =>
      LIST_PATH.test(request.path) ? { body: listAnswer(listed) } : { status: 404, body: { code: 5, message: "not found" } },
    );
  });
  afterEach(function () {
    for (const client of clients) client.close();
    clients = [];
  });

  function client(): RobotClient {
    const made = new RobotClient({ baseUrl: stub.server.url, auth: { token: "directory-token" } });
    clients.push(made);
    return made;
  }

  it("reads the list when the account starts: name, model code and software version; the serial number where the list names none", async function () {
    const account = client();
    const directory = robotDirectoryOf(account.accountKey);
    assert.equal(robotNameOf(account.accountKey, "GS-S-1"), "GS-S-1", "before the first read: the serial number");
    const detach = directory.attach(account, 60_000);
    await until("the list is read", () => directory.readTime > 0);
    detach();
    assert.equal(listReads(), 1);
    assert.equal(robotNameOf(account.accountKey, "GS-S-1"), "Lobby scrubber");
    assert.deepEqual(directory.entryOf("GS-S-1"), {
      serialNumber: "GS-S-1",
      displayName: "Lobby scrubber",
      modelFamilyCode: "S",
      modelTypeCode: "S1",
      softwareVersion: "3.8.2",
    });
    assert.equal(robotNameOf(account.accountKey, "GS-S-9"), "GS-S-9");
    const request = stub.server.requests.find((recorded) => LIST_PATH.test(recorded.path))!;
    assert.equal(request.headers["content-type"], undefined, "the robot list goes without a Content-Type (docs/cloud-api.md)");
  });

  it("reads it again every interval, and a redeploy that finds it fresh reads nothing", async function () {
    const account = client();
    const directory = robotDirectoryOf(account.accountKey);
    let detach = directory.attach(account, 300);
    await until("the first read", () => listReads() === 1);
    listed = [{ serialNumber: "GS-S-1", displayName: "Lobby scrubber (renamed)" }];
    await until("a read one interval later", () => directory.nameOf("GS-S-1") === "Lobby scrubber (renamed)", 3_000);
    assert.equal(listReads(), 2);
    // A redeploy: the config node closes and comes back at once, with the list 0-300 ms old.
    detach();
    const reads = listReads();
    detach = directory.attach(client(), 60_000);
    await sleep(200);
    detach();
    assert.equal(listReads(), reads, "the new config node finds the list fresh");
  });

  it("a status naming a robot the list does not know brings a read at once; another unknown robot within a minute brings none", async function () {
    let now = Date.now();
    const account = client();
    const directory = new RobotDirectory(() => now);
    const detach = directory.attach(account, 3_600_000);
    await until("the first read", () => directory.readTime > 0);
    listed.push({ serialNumber: "GS-S-2", displayName: "Kitchen scrubber" });
    directory.notice(["GS-S-1"]);
    await sleep(50);
    assert.equal(listReads(), 1, "a robot the list knows brings no read");
    now += 1;
    directory.notice(["GS-S-2"]);
    await until("the read for the unknown robot", () => directory.nameOf("GS-S-2") === "Kitchen scrubber");
    assert.equal(listReads(), 2);
    // Just under a minute after that read: a robot the list never names must not bring a read per status round.
    now += UNKNOWN_ROBOT_READ_GAP_MS - 1;
    directory.notice(["GS-S-404"]);
    await sleep(100);
    assert.equal(listReads(), 2, "59.999 s after the last read for an unknown robot: none");
    now += 1;
    directory.notice(["GS-S-404"]);
    await until("a read a minute after the last", () => listReads() === 3);
    detach();
  });

  it("every status the account keeps is noticed: a robot added to the list after the start gets its name within one status round", async function () {
    const account = client();
    const directory = robotDirectoryOf(account.accountKey);
    const detach = directory.attach(account, 3_600_000);
    await until("the first read", () => directory.readTime > 0);
    listed.push({ serialNumber: "GS-S-3", displayName: "Loading bay sweeper", softwareVersion: "3.9.0" });
    fleetStatusesOf(account.accountKey).record([{ serialNumber: "GS-S-3", online: true, taskState: "IDLE" }]);
    await until("its name", () => robotNameOf(account.accountKey, "GS-S-3") === "Loading bay sweeper");
    assert.equal(directory.entryOf("GS-S-3")?.softwareVersion, "3.9.0");
    detach();
  });

  it("whether a robot is the account's: a listed one at once, without a promise; an unlisted one refused by a list under a minute old, else after one read; cannot tell without a list", async function () {
    let now = Date.now();
    const account = client();
    const directory = new RobotDirectory(() => now);
    assert.equal(directory.membershipOf("GS-S-1"), "cannotTell", "nothing to read with: no config attached");
    const detach = directory.attach(account, 3_600_000);
    assert.equal(await directory.membershipOf("GS-S-1"), "ofAccount", "the first read under way is waited for");
    const readAt = now;
    assert.equal(directory.membershipOf("GS-S-1"), "ofAccount", "a listed robot: an answer, not a promise");
    assert.deepEqual(directory.robotsNotOfAccount(["GS-S-1"]), []);
    listed.push({ serialNumber: "GS-S-2" });
    now = readAt + UNKNOWN_ROBOT_READ_GAP_MS - 1;
    assert.equal(directory.membershipOf("GS-S-2"), "notOfAccount", "a list 59.999 s old refuses without a read");
    assert.equal(listReads(), 1);
    now = readAt + UNKNOWN_ROBOT_READ_GAP_MS;
    const answers = [directory.robotsNotOfAccount(["GS-S-1", "GS-S-2", "GS-X-999"]), directory.membershipOf("GS-X-998")];
    assert.ok(
      answers.every((answer) => answer instanceof Promise),
      "a list a minute old is read first",
    );
    assert.deepEqual(await Promise.all(answers), [["GS-X-999"], "notOfAccount"]);
    assert.equal(listReads(), 2, "one read for both");
    // The cloud refuses the list a minute later: a robot the list in hand does not name cannot be told.
    stub.server.respondWith(() => ({ status: 403, body: { code: 7, message: "Permission denied." } }));
    now += UNKNOWN_ROBOT_READ_GAP_MS;
    assert.equal(await directory.membershipOf("GS-X-999"), "cannotTell");
    assert.equal(directory.membershipOf("GS-X-999"), "cannotTell", "no second read within the minute");
    assert.equal(directory.membershipOf("GS-S-2"), "ofAccount");
    assert.equal(listReads(), 3);
    // A list that names no robot says nothing of any.
    directory.learn([], now);
    assert.equal(directory.membershipOf("GS-S-1"), "cannotTell");
    detach();
  });

  it("a failed read keeps the names in hand", async function () {
    const account = client();
    let now = Date.now();
    const directory = new RobotDirectory(() => now);
    await directory.refresh(0);
    assert.equal(listReads(), 0, "nothing to read with: no config attached");
    const detach = directory.attach(account, 3_600_000);
    await until("the first read", () => directory.readTime > 0);
    stub.server.respondWith(() => ({ status: 500, body: { code: 13, message: "internal" } }));
    now += 3_600_000;
    await directory.refresh(3_600_000);
    assert.equal(directory.nameOf("GS-S-1"), "Lobby scrubber", "the names in hand stay");
    detach();
  });
});
