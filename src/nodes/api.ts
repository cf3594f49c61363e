/**
 * The client module, loaded when a robot-config is first deployed or a
 * request first prepared: its request schemas (zod) take most of the time
 * a require of the nodes would otherwise cost at every Node-RED start,
 * whether or not a flow uses them (npm run bench prints both figures).
 */
type ClientModule = typeof import("../api/client");

let loaded: ClientModule | undefined;

export function clientModule(): ClientModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  return (loaded ??= require("../api/client") as ClientModule);
}
