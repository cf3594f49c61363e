/**
 * A report's coverage image: the PNG its report names (taskReportPngUri), or
 * the first the coverage-images endpoint lists, downloaded like a map image:
 * from another host, without the bearer token.
 */
import type { DownloadOptions, MapImage, RobotClient } from "../client";
import { pathFor, type Endpoint, type RobotOperationName } from "../endpoints";
import { RobotApiError, describeIssues } from "../errors";
import type { PreparedCall } from "../prepare";
import { TaskReportImages, TaskReportImagesRequest } from "../schemas";

/**
 * POST /openapi-server/v1/api/task/report/map-images/query {robotSn,
 * taskReportId} -> {data: [url, ...]} (docs/cloud-api.md). Kept here, out of
 * the endpoint table, until the simulator serves it (every row of the table
 * must have a simulator handler): then it becomes the table's row
 * `getTaskReportImages` and this prepared call `prepareCall("getTaskReportImages", ...)`.
 */
export const TASK_REPORT_IMAGES_ENDPOINT: Endpoint = {
  id: "N6",
  method: "POST",
  path: "/openapi-server/v1/api/task/report/map-images/query",
  request: TaskReportImagesRequest,
  sendsBody: true,
  serialNumberOf: (request) => (request as { robotSn: string }).robotSn,
  envelope: false,
  response: TaskReportImages,
  authenticated: true,
  read: true,
};
const OPERATION = "getTaskReportImages";

/** The coverage images of one report: their URLs, as the cloud lists them. */
export async function taskReportImageUrls(client: RobotClient, serialNumber: string, taskReportId: string, options: DownloadOptions = {}): Promise<string[]> {
  const parsed = TaskReportImagesRequest.safeParse({ robotSn: serialNumber, taskReportId });
  if (!parsed.success) throw new RobotApiError({ kind: "invalid_input", operation: OPERATION, ...describeIssues(parsed.error) });
  const prepared = {
    operation: OPERATION as RobotOperationName,
    endpoint: TASK_REPORT_IMAGES_ENDPOINT,
    serialNumber,
    path: pathFor(TASK_REPORT_IMAGES_ENDPOINT, {}),
    query: "",
    body: JSON.stringify(parsed.data),
    urgent: false,
  } satisfies PreparedCall;
  // maxBytes is for the download; the call takes the rest.
  const callOptions = { ...options };
  delete callOptions.maxBytes;
  const answer = (await client.send(prepared, callOptions)) as unknown as TaskReportImages;
  return answer.data;
}

/** The report's coverage PNG: from its own URI when it has one, else the first the endpoint lists. */
export async function taskReportImage(
  client: RobotClient,
  report: { serialNumber: string; reportId: string; pngUri?: string },
  options: DownloadOptions = {},
): Promise<MapImage & { url: string }> {
  let url = report.pngUri;
  if (!url) {
    [url] = await taskReportImageUrls(client, report.serialNumber, report.reportId, options);
    if (!url) throw new RobotApiError({ kind: "bad_response", operation: OPERATION, message: `${OPERATION}: the cloud lists no coverage image for report ${report.reportId}` });
  }
  const image = await client.downloadMapImage(url, options);
  // The URL without its query: the signature grants access.
  return { ...image, url: url.split("?")[0]! };
}
