/** The robot-cloud simulator for a test file: started once on a free loopback port, reset before each test. */
import { startSimulator, type RunningSimulator, type SimulatorOptions } from "../../src/simulator";
import { forgetAccountMemory } from "../../src/api/account/account-memory";

/**
 * `options` adds to the quiet, unpaced default (a timing, say). With `forgetAccounts`, each test also
 * starts with an empty account memory: no status, name or job a test before it kept.
 */
export function useSimulator(options: SimulatorOptions = {}, forgetAccounts = false): { readonly simulator: RunningSimulator } {
  const holder = {} as { simulator: RunningSimulator };
  before(async () => {
    holder.simulator = await startSimulator({ port: 0, quiet: true, rateLimit: false, ...options });
  });
  after(async () => {
    await holder.simulator?.close();
  });
  beforeEach(() => {
    holder.simulator.reset();
    if (forgetAccounts) forgetAccountMemory();
  });
  return holder;
}
