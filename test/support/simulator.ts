/** The robot-cloud simulator for a test file: started once on a free loopback port, reset before each test. */
import { startSimulator, type RunningSimulator } from "../../src/simulator";

export function useSimulator(): { readonly simulator: RunningSimulator } {
  const holder = {} as { simulator: RunningSimulator };
  before(async () => {
    holder.simulator = await startSimulator({ port: 0, quiet: true, rateLimit: false });
  });
  after(async () => {
    await holder.simulator?.close();
  });
  beforeEach(() => holder.simulator.reset());
  return holder;
}
