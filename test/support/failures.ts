/** Awaiting a call that must fail: the RobotApiError it failed with, or a test failure. */
import assert from "node:assert/strict";
import { RobotApiError } from "../../src/api/errors";

export async function failureOf(promise: Promise<unknown>): Promise<RobotApiError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof RobotApiError, `expected a RobotApiError, got ${String(error)}`);
    return error;
  }
  return assert.fail("expected the call to fail");
}
