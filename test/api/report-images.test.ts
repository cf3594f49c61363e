/**
 * Coverage images kept with the record (report-images.ts, report-store.ts):
 * the store's bounds at their edges (one image's size, the account's total,
 * pruned with the report), and the fetch when a report is kept, against a
 * recording stub of an object store on loopback: once, without the token, a
 * lasting refusal kept as the reason, a passing failure asked again.
 */
import assert from "node:assert/strict";
import { forgetAccountMemory } from "../../src/api/account/account-memory";
import { readReport, type ReadReport } from "../../src/api/reports/reading";
import { keepReport, keptImageOf } from "../../src/api/reports/report-images";
import { AccountReports, MAX_KEPT_IMAGE_BYTES, REPORTS_KEPT_PER_ROBOT, reportsOfAccount } from "../../src/api/reports/report-store";
import { useClientOnRecordingServer } from "../support/client-on-server";
import { until } from "../support/until";

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
/** A PNG-signed buffer of exactly `bytes` bytes. */
const png = (bytes: number) => Buffer.concat([PNG_SIGNATURE, Buffer.alloc(bytes - PNG_SIGNATURE.length, 7)]);
const report = (id: string, fields: Record<string, unknown> = {}, serialNumber = "R1"): ReadReport =>
  readReport({ id, ...fields }, serialNumber)!;

describe("coverage images kept with the record: the store's bounds", () => {
  const bounds = { perImage: 100, total: 300 };
  const storeWith = (...ids: string[]) => {
    const store = new AccountReports(bounds);
    for (const id of ids) store.keep(report(id));
    return store;
  };

  it("keeps an image of the per-image bound and one byte under it, and keeps one a byte over as too large", () => {
    const store = storeWith("at", "under", "over");
    store.keepImage("R1/at", "R1", { data: png(100), contentType: "image/png" });
    store.keepImage("R1/under", "R1", { data: png(99), contentType: "image/png" });
    store.keepImage("R1/over", "R1", { data: png(101), contentType: "image/png" });
    assert.equal((store.imageOf("R1/at", "R1") as { data: Buffer }).data.length, 100);
    assert.equal((store.imageOf("R1/under", "R1") as { data: Buffer }).data.length, 99);
    assert.deepEqual(store.imageOf("R1/over", "R1"), { why: "tooLarge" });
  });

  it("keeps images up to the total, and one byte over it drops the oldest kept, its reason kept", () => {
    const store = storeWith("a", "b", "c", "d");
    for (const id of ["a", "b", "c"]) store.keepImage(`R1/${id}`, "R1", { data: png(100), contentType: "image/png" });
    assert.ok(
      ["a", "b", "c"].every((id) => "data" in store.imageOf(`R1/${id}`, "R1")!),
      "300 bytes: at the total, all kept",
    );
    store.keepImage("R1/d", "R1", { data: png(10), contentType: "image/png" });
    assert.deepEqual(store.imageOf("R1/a", "R1"), { why: "dropped" }, "310 bytes: the oldest dropped");
    assert.ok(
      ["b", "c", "d"].every((id) => "data" in store.imageOf(`R1/${id}`, "R1")!),
      "the newest kept",
    );
  });

  it("forgets a report's image with the report, and keeps none for a report it does not keep", () => {
    const ids = Array.from({ length: REPORTS_KEPT_PER_ROBOT }, (_, index) => `r${index}`);
    const store = storeWith(...ids);
    store.keepImage("R1/r0", "R1", { data: png(100), contentType: "image/png" });
    store.keepImage("R1/unknown", "R1", { data: png(100), contentType: "image/png" });
    assert.equal(store.imageOf("R1/unknown", "R1"), undefined);
    store.keep(report("newest"));
    assert.equal(store.get("R1/r0", "R1"), undefined, "the oldest report forgotten");
    assert.equal(store.imageOf("R1/r0", "R1"), undefined, "its image with it");
    // Its bytes no longer count: three images of 100 fit the total of 300.
    for (const id of ["r1", "r2", "r3"]) store.keepImage(`R1/${id}`, "R1", { data: png(100), contentType: "image/png" });
    assert.ok(["r1", "r2", "r3"].every((id) => "data" in store.imageOf(`R1/${id}`, "R1")!));
  });
});

describe("coverage images kept with the record: the fetch when a report is kept", () => {
  const context = useClientOnRecordingServer({ auth: { token: "secret-token" }, retry: { maxRetries: 0 } });
  afterEach(() => forgetAccountMemory());
  const linked = (id: string) => report(id, { taskReportPngUri: `${context.server.url}/objects/${id}.png?expires=1&signature=abc` });
  const imageGets = () => context.server.requests.filter((request) => request.path.startsWith("/objects/"));

  it("fetches the image once when the report is kept, without the token, and keeps its bytes with the report", async () => {
    context.server.respondWith(() => ({ status: 200, body: png(64), headers: { "Content-Type": "application/octet-stream" } }));
    const { client } = context;
    keepReport(client, linked("r1"));
    keepReport(client, linked("r1"));
    const image = await keptImageOf(client, linked("r1"));
    assert.deepEqual(image, { data: png(64), contentType: "image/png" }, "a PNG by its signature, whatever the store called it");
    assert.equal(imageGets().length, 1);
    assert.equal(imageGets()[0]!.headers.authorization, undefined);
    assert.deepEqual(reportsOfAccount(client.accountKey).imageOf("R1/r1", "R1"), image);
  });

  it(`keeps an image of ${MAX_KEPT_IMAGE_BYTES} bytes, and one a byte larger as too large`, async () => {
    context.server.respondWith((request) => ({
      status: 200,
      body: png(request.path.startsWith("/objects/at") ? MAX_KEPT_IMAGE_BYTES : MAX_KEPT_IMAGE_BYTES + 1),
    }));
    const { client } = context;
    keepReport(client, linked("at"));
    keepReport(client, linked("over"));
    const reports = reportsOfAccount(client.accountKey);
    await until("both fetched", () => reports.imageOf("R1/at", "R1") !== undefined && reports.imageOf("R1/over", "R1") !== undefined);
    assert.equal((reports.imageOf("R1/at", "R1") as { data: Buffer }).data.length, MAX_KEPT_IMAGE_BYTES);
    assert.deepEqual(reports.imageOf("R1/over", "R1"), { why: "tooLarge" });
  });

  it("keeps an expired link's 403 as the reason and does not ask again; an answer that is no image as notImage", async () => {
    context.server.respondWith((request) =>
      request.path.startsWith("/objects/expired")
        ? {
            status: 403,
            body: "<Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>",
            headers: { "Content-Type": "application/xml" },
          }
        : { status: 200, body: "<html>a login page</html>", headers: { "Content-Type": "text/html" } },
    );
    const { client } = context;
    keepReport(client, linked("expired"));
    keepReport(client, linked("page"));
    assert.deepEqual(await keptImageOf(client, linked("expired")), { why: "refused", status: 403 });
    assert.deepEqual(await keptImageOf(client, linked("page")), { why: "notImage" });
    await keptImageOf(client, linked("expired"));
    assert.equal(imageGets().length, 2, "each fetched once");
  });

  it("keeps nothing for a failure that may pass (503), and fetches again when asked", async () => {
    context.server.reply({ status: 503, body: "busy" }).respondWith(() => ({ status: 200, body: png(32) }));
    const { client } = context;
    keepReport(client, linked("r1"));
    assert.equal(await keptImageOf(client, linked("r1")), undefined, "the fetch under way answered 503: nothing kept");
    assert.equal(reportsOfAccount(client.accountKey).imageOf("R1/r1", "R1"), undefined);
    assert.deepEqual(await keptImageOf(client, linked("r1")), { data: png(32), contentType: "image/png" });
    assert.equal(imageGets().length, 2);
  });
});
