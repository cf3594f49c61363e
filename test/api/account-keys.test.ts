/**
 * The shared account's Redis keys against fixed strings: the hashes were
 * computed once by hand (node's crypto, sha256 of "<base URL>\n<identity>",
 * first 32 hex digits) and pasted here, so a key made from less than the base
 * URL and the identity (a staging and a production cloud with one client id
 * sharing a token and a rate) fails. No Redis is needed: the link points at a
 * closed loopback port and only builds keys.
 */
import assert from "node:assert/strict";
import { createServer, type AddressInfo } from "node:net";
import { accountKeyOf } from "../../src/api/account/account-memory";
import { RedisLink } from "../../src/api/sharing/redis-link";

const PRODUCTION = "https://openapi.gs-robot.com";
const STAGING = "https://staging.openapi.example";
const CLIENT_ID = "client-prod-7";
/** sha256("https://openapi.gs-robot.com\nclient-prod-7"), first 32 hex digits. */
const PRODUCTION_KEY = "58766c79f85e05db1e55165d17848369";
/** sha256("https://staging.openapi.example\nclient-prod-7"), first 32 hex digits. */
const STAGING_KEY = "4431d5ecdfb30bd3dd6df529df039221";
/** sha256("https://openapi.gs-robot.com\nclient-other-8"), first 32 hex digits. */
const OTHER_CLIENT_KEY = "14edf1b31ebeb3510bc3f5c482923c1f";

/** A loopback port nothing listens on (taken from the OS, then freed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe("api: the shared account's Redis keys", function () {
  it("hash the base URL and the identity together: one client id on two clouds has two keys", function () {
    assert.equal(accountKeyOf(PRODUCTION, CLIENT_ID), PRODUCTION_KEY);
    assert.equal(accountKeyOf(STAGING, CLIENT_ID), STAGING_KEY);
    assert.equal(accountKeyOf(PRODUCTION, "client-other-8"), OTHER_CLIENT_KEY);
  });

  it("every key of a link is the prefix, the account's hash and the parts", async function () {
    const url = `redis://127.0.0.1:${await closedPort()}`;
    const links = [
      new RedisLink({ url, prefix: "robot-fleet", account: { baseUrl: PRODUCTION, identity: CLIENT_ID }, log: () => undefined }),
      new RedisLink({ url, prefix: "site-b", account: { baseUrl: STAGING, identity: CLIENT_ID }, log: () => undefined }),
    ];
    try {
      const [production, staging] = links;
      assert.equal(production!.accountKey, PRODUCTION_KEY);
      assert.equal(production!.key("token"), `robot-fleet:${PRODUCTION_KEY}:token`);
      assert.equal(production!.key("watch", "node-1", "lease"), `robot-fleet:${PRODUCTION_KEY}:watch:node-1:lease`);
      assert.equal(staging!.key("rate"), `site-b:${STAGING_KEY}:rate`);
    } finally {
      for (const link of links) link.close();
    }
  });
});
