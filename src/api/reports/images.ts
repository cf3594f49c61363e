/**
 * A report's coverage image: the PNG its report names (taskReportPngUri), or
 * the first the coverage-images endpoint lists, downloaded like a map image:
 * from another host, without the bearer token.
 */
import type { DownloadOptions, MapImage, RobotClient } from "../client";
import { RobotApiError } from "../errors";

const OPERATION = "getTaskReportImages";

/** The coverage images of one report: their URLs, as the cloud lists them (endpoint N6, docs/cloud-api.md). */
export async function taskReportImageUrls(
  client: RobotClient,
  serialNumber: string,
  taskReportId: string,
  options: DownloadOptions = {},
): Promise<string[]> {
  // maxBytes is for the download; the call takes the rest.
  const callOptions = { ...options };
  delete callOptions.maxBytes;
  const answer = await client.getTaskReportImages({ robotSn: serialNumber, taskReportId }, callOptions);
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
    if (!url)
      throw new RobotApiError({
        kind: "bad_response",
        operation: OPERATION,
        message: `${OPERATION}: the cloud lists no coverage image for report ${report.reportId}`,
      });
  }
  const image = await client.downloadMapImage(url, options);
  // The URL without its query: the signature grants access.
  return { ...image, url: url.split("?")[0]! };
}
