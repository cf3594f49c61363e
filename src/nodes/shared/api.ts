/**
 * The API modules the nodes use, each loaded when a node first needs it (the
 * client when a robot-config is first deployed or a request first prepared):
 * their schemas (zod) take most of the time a require of the nodes would
 * otherwise cost at every Node-RED start, whether or not a flow uses them
 * (npm run bench prints both figures).
 */
type ClientModule = typeof import("../../api/client");
type PushReceiverModule = typeof import("../../api/pushes/push-receiver");
type ReportImagesModule = typeof import("../../api/reports/images");

let loaded: ClientModule | undefined;
let pushReceiverLoaded: PushReceiverModule | undefined;
let reportImagesLoaded: ReportImagesModule | undefined;

export function clientModule(): ClientModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  return (loaded ??= require("../../api/client") as ClientModule);
}

/** The receiver of the cloud's pushes (robot-events), loaded when such a node is first deployed. */
export function pushReceiverModule(): PushReceiverModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  return (pushReceiverLoaded ??= require("../../api/pushes/push-receiver") as PushReceiverModule);
}

/** Coverage images of task reports (robot-reports), loaded with the first image asked for: it holds the endpoint's schemas. */
export function reportImagesModule(): ReportImagesModule {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- deferred on purpose, see above
  return (reportImagesLoaded ??= require("../../api/reports/images") as ReportImagesModule);
}
