/**
 * Map images: the cloud gives a pre-signed downloadUri on another host, and
 * the PNG is fetched from it with no Authorization header (asserted at the
 * download server), within a size
 * limit, the client's timeout, http(s) only, no redirects, and not through the
 * account's engine (its pause does not hold a download).
 */
import assert from "node:assert/strict";
import { gzipSync } from "node:zlib";
import { DEFAULT_MAX_IMAGE_BYTES, RobotClient } from "../../src/api/client";
import { RecordingServer } from "../support/recording-server";
import { failureOf } from "../support/failures";

const TOKEN = "tok-map-image-9b2e";
const SN = "GS-S-000101";
const MAP = { serialNumber: SN, mapId: "0a6c3f52-7d1e-4b8a-9f25-3c71e4d2b801", mapName: "Floor 1", mapVersion: "3" };
/** Enough of a PNG for the client, which does not look inside. */
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("rest of the image")]);
const SIGNED_QUERY = "X-Amz-Expires=600&X-Amz-Signature=5ecre75ig";

describe("api: map images from a pre-signed URL", function () {
  let cloud: RecordingServer;
  let objects: RecordingServer;
  let client: RobotClient;
  let imageUrl: string;

  before(async () => {
    cloud = await new RecordingServer().start();
    objects = await new RecordingServer().start();
    // Another host name and port than the cloud's, as in production.
    imageUrl = `${objects.url.replace("127.0.0.1", "localhost")}/maps/${SN}/floor-1.png?${SIGNED_QUERY}`;
    client = new RobotClient({ baseUrl: cloud.url, auth: { token: TOKEN }, timeoutMs: 2000, retry: { maxRetries: 0 } });
  });
  after(async () => {
    client.close();
    await cloud.stop();
    await objects.stop();
  });
  beforeEach(() => {
    cloud.reset();
    objects.reset();
    objects.respondWith(() => ({ body: PNG, headers: { "Content-Type": "image/png" } }));
  });

  it("asks the cloud for the downloadUri with the bearer token, then fetches the PNG with no Authorization header", async function () {
    cloud.reply({ body: { downloadUri: imageUrl } });
    const image = await client.getMapImage(MAP);
    assert.ok(Buffer.isBuffer(image.data));
    assert.deepEqual(image.data, PNG);
    assert.equal(image.contentType, "image/png");

    assert.equal(cloud.requests.length, 1);
    assert.equal(cloud.requests[0]!.path, `/openapi/v2alpha1/robots/${SN}/map?mapId=${MAP.mapId}&mapName=Floor%201&mapVersion=3`);
    assert.equal(cloud.requests[0]!.headers.authorization, `Bearer ${TOKEN}`);

    assert.equal(objects.requests.length, 1);
    const download = objects.requests[0]!;
    assert.equal(download.method, "GET");
    assert.equal(download.path, `/maps/${SN}/floor-1.png?${SIGNED_QUERY}`, "the pre-signed query exactly as given");
    assert.equal(download.headers.authorization, undefined, "no Authorization header at the download server");
    assert.equal(download.headers.cookie, undefined);
    assert.ok(!JSON.stringify(download.headers).includes(TOKEN), "the token appears nowhere in the download's headers");
    assert.equal(download.rawBody, "");
  });

  it("an answer over the size limit fails with a clear bad_response (default 10 MiB)", async function () {
    objects.respondWith(() => ({ body: Buffer.alloc(DEFAULT_MAX_IMAGE_BYTES + 1), headers: { "Content-Type": "image/png" } }));
    const error = await failureOf(client.downloadMapImage(imageUrl));
    assert.equal(error.kind, "bad_response");
    assert.equal(error.operation, "downloadMapImage");
    assert.match(error.message, /larger than 10485760 bytes \(maxBytes\)/);
    assert.ok(!error.message.includes("5ecre75ig"), "the signature is not repeated");
  });

  it("maxBytes lowers the limit; an image of exactly maxBytes is fine", async function () {
    objects.respondWith(() => ({ body: Buffer.alloc(1000, 7), headers: { "Content-Type": "image/png" } }));
    assert.equal((await client.downloadMapImage(imageUrl, { maxBytes: 1000 })).data.length, 1000);
    const error = await failureOf(client.downloadMapImage(imageUrl, { maxBytes: 999 }));
    assert.match(error.message, /larger than 999 bytes/);
  });

  it("counts the bytes after decompression: a small gzip that inflates past the limit is refused", async function () {
    const bomb = gzipSync(Buffer.alloc(4 * 1024 * 1024));
    assert.ok(bomb.length < 10_000);
    objects.respondWith(() => ({ body: bomb, headers: { "Content-Type": "image/png", "Content-Encoding": "gzip" } }));
    const error = await failureOf(client.downloadMapImage(imageUrl, { maxBytes: 1024 * 1024 }));
    assert.equal(error.kind, "bad_response");
  });

  it("refuses maxBytes that is not a whole number of 1 or more", async function () {
    for (const maxBytes of [0, -5, 1.5, NaN]) {
      assert.equal((await failureOf(client.downloadMapImage(imageUrl, { maxBytes }))).field, "maxBytes");
    }
    assert.equal(objects.requests.length, 0);
  });

  const notFetched: [string, unknown][] = [
    ["file:", "file:///etc/passwd"],
    ["data:", "data:image/png;base64,iVBORw0KGgo="],
    ["ftp:", "ftp://objects.example.test/map.png"],
    ["javascript:", "javascript:alert(1)"],
    ["a relative path (it would go to no host we know)", "/maps/map.png"],
    ["an empty string", ""],
    ["a number", 42],
    ["user and password", "http://user:pw@127.0.0.1:1/map.png"],
  ];
  for (const [name, downloadUri] of notFetched) {
    it(`does not fetch a downloadUri that is ${name}`, async function () {
      const direct = await failureOf(client.downloadMapImage(downloadUri as string));
      assert.equal(direct.kind, "invalid_input");
      assert.equal(direct.field, "downloadUri");

      cloud.reply({ body: { downloadUri } });
      const viaCloud = await failureOf(client.getMapImage(MAP));
      // From the cloud, a bad or missing URL is the cloud's fault.
      assert.equal(viaCloud.kind, "bad_response");
      assert.equal(objects.requests.length, 0);
    });
  }

  it("does not follow a redirect (it could lead anywhere): HTTP 302 is the error", async function () {
    const elsewhere = await new RecordingServer().start();
    try {
      objects.respondWith(() => ({ status: 302, body: "", headers: { Location: `${elsewhere.url}/stolen` } }));
      const error = await failureOf(client.downloadMapImage(imageUrl));
      assert.equal(error.kind, "http");
      assert.equal(error.status, 302);
      assert.match(error.message, /redirect/);
      assert.equal(elsewhere.requests.length, 0);
    } finally {
      await elsewhere.stop();
    }
  });

  it("an object store's refusal is an http error with its code and message, without the URL's signature", async function () {
    objects.respondWith(() => ({
      status: 403,
      body: '<?xml version="1.0"?><Error><Code>AccessDenied</Code><Message>Request has expired</Message></Error>',
      headers: { "Content-Type": "application/xml" },
    }));
    const error = await failureOf(client.downloadMapImage(imageUrl));
    assert.equal(error.kind, "http");
    assert.equal(error.status, 403);
    assert.match(error.message, /HTTP 403 from http:\/\/localhost:\d+\/maps\/GS-S-000101\/floor-1\.png: AccessDenied: Request has expired/);
    assert.match(error.message, /expired/);
    assert.ok(!error.message.includes("5ecre75ig"), error.message);
  });

  it("a download slower than the client's timeout fails as a timeout", async function () {
    const quick = new RobotClient({ baseUrl: cloud.url, auth: { token: TOKEN }, timeoutMs: 150, retry: { maxRetries: 0 } });
    try {
      objects.respondWith(() => ({ body: PNG, delayMs: 1000 }));
      const error = await failureOf(quick.downloadMapImage(imageUrl));
      assert.equal(error.kind, "timeout");
      assert.equal(error.operation, "downloadMapImage");
    } finally {
      quick.close();
    }
  });

  it("a caller's abort stops the download", async function () {
    objects.respondWith(() => ({ body: PNG, delayMs: 1000 }));
    const controller = new AbortController();
    const pending = client.downloadMapImage(imageUrl, { signal: controller.signal });
    setTimeout(() => controller.abort(), 20);
    assert.equal((await failureOf(pending)).kind, "aborted");
  });

  it("gives application/octet-stream when the store names no type", async function () {
    objects.respondWith(() => ({ body: PNG, headers: { "Content-Type": "" } }));
    assert.equal((await client.downloadMapImage(imageUrl)).contentType, "application/octet-stream");
  });

  it("is not held by the account's pause: object storage is not the cloud account's quota", async function () {
    const paused = new RobotClient({ baseUrl: cloud.url, auth: { token: TOKEN }, retry: { maxRetries: 0 } });
    try {
      cloud.reply({ status: 429, body: { code: 8, message: "slow down" }, headers: { "Retry-After": "30" } });
      await failureOf(paused.getRobotStatus({ serialNumber: SN }));
      assert.ok(paused.engine.pausedForMs() > 20_000, "the account waits 30 s");
      const image = await paused.downloadMapImage(imageUrl);
      assert.deepEqual(image.data, PNG);
      assert.equal(paused.engine.waiting, 0, "nothing of the download went through the account's engine");
    } finally {
      paused.close();
    }
  });

  it("getMapImage's first step is paced by the account's engine like any call", async function () {
    const tracked = new RobotClient({ baseUrl: cloud.url, auth: { token: TOKEN }, engine: { connections: 1 }, retry: { maxRetries: 0 } });
    try {
      cloud.respondWith(() => ({ body: { downloadUri: imageUrl }, delayMs: 20 }));
      const images = await Promise.all([tracked.getMapImage(MAP), tracked.getMapImage(MAP), tracked.getMapImage(MAP)]);
      assert.equal(images.length, 3);
      assert.equal(cloud.requests.length, 3);
      assert.equal(objects.requests.length, 3);
      for (const request of objects.requests) assert.equal(request.headers.authorization, undefined);
    } finally {
      tracked.close();
    }
  });
});
