/**
 * A robot cloud that keeps task reports, on a recording server: it lists the
 * account's robots, answers the task reports endpoint from its reports by
 * time window (startTimeUtcFloor <= start <= startTimeUtcUpper) and page,
 * newest first, lists a report's coverage images, and serves each image as a
 * PNG from an "object store" path, noting whether an Authorization header
 * reached it. Every request is recorded.
 */
import { PNG } from "pngjs";
import { RecordingServer, type RecordedRequest, type ScriptedReply } from "./recording-server";

const OBJECT_PREFIX = "/objects/coverage/";
const IMAGES_PATH = "/openapi-server/v1/api/task/report/map-images/query";

/** A small PNG whose size says which report it shows (width = the length of its id + 1). */
export function coveragePng(width: number): Buffer {
  const png = new PNG({ width, height: 2 });
  png.data.fill(200);
  return PNG.sync.write(png);
}

export class ReportsStub {
  readonly server = new RecordingServer();
  readonly robots = new Map<string, string>();
  /** Each robot's reports as the cloud lists them (polled shape). */
  readonly reports = new Map<string, Record<string, unknown>[]>();
  /** Robots whose task reports answer HTTP 500 while listed here. */
  readonly failing = new Set<string>();
  /** Robots whose task reports are refused with code 110003 (not bound to this app for reports) while listed here. */
  readonly notBound = new Set<string>();
  /** Set to make the endpoint ignore the time window (a cloud that only pages). */
  ignoresWindow = false;
  /** Image downloads that carried an Authorization header. */
  imageRequestsWithToken = 0;

  constructor() {
    this.server.respondWith((request) => this.answer(request));
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  stop(): Promise<void> {
    return this.server.stop();
  }

  get url(): string {
    return this.server.url;
  }

  addRobot(serialNumber: string, displayName: string): void {
    this.robots.set(serialNumber, displayName);
    if (!this.reports.has(serialNumber)) this.reports.set(serialNumber, []);
  }

  /** Files a report, as a robot does when its task ends. */
  file(report: Record<string, unknown>): void {
    const robot = String(report.robotSerialNumber);
    if (!this.reports.has(robot)) this.reports.set(robot, []);
    this.reports.get(robot)!.push(report);
  }

  /** The task report requests recorded, with their robot, page and window. */
  reportRequests(): { serialNumber: string; page: number; pageSize: number; floor?: string; upper?: string }[] {
    return this.server.requests
      .filter((request) => request.path.includes("/taskReports"))
      .map((request) => {
        const url = new URL(request.path, "http://stub");
        return {
          serialNumber: decodeURIComponent(url.pathname.split("/")[4]!),
          page: Number(url.searchParams.get("page")),
          pageSize: Number(url.searchParams.get("pageSize")),
          ...(url.searchParams.has("startTimeUtcFloor") ? { floor: url.searchParams.get("startTimeUtcFloor")! } : {}),
          ...(url.searchParams.has("startTimeUtcUpper") ? { upper: url.searchParams.get("startTimeUtcUpper")! } : {}),
        };
      });
  }

  private answer(request: RecordedRequest): ScriptedReply {
    const url = new URL(request.path, "http://stub");
    if (url.pathname.startsWith(OBJECT_PREFIX)) {
      if (request.headers.authorization !== undefined) this.imageRequestsWithToken++;
      const width = decodeURIComponent(url.pathname.slice(OBJECT_PREFIX.length)).replace(/\.png$/, "").length + 1;
      return { body: coveragePng(width), headers: { "Content-Type": "image/png" } };
    }
    if (request.headers.authorization === undefined) return { status: 401, body: { code: 16, message: "no token" } };
    if (request.method === "GET" && url.pathname === "/v1alpha1/robots") {
      const page = Number(url.searchParams.get("page") ?? 1);
      const pageSize = Number(url.searchParams.get("pageSize") ?? 100);
      const all = [...this.robots].map(([serialNumber, displayName]) => ({ serialNumber, displayName }));
      return { body: { robots: all.slice((page - 1) * pageSize, page * pageSize), total: String(all.length) } };
    }
    const reports = /^\/openapi\/v2alpha1\/robots\/([^/]+)\/taskReports$/.exec(url.pathname);
    if (request.method === "GET" && reports) return this.reportPage(decodeURIComponent(reports[1]!), url.searchParams);
    if (request.method === "POST" && url.pathname === IMAGES_PATH) {
      const { robotSn, taskReportId } = request.body as { robotSn: string; taskReportId: string };
      const known = (this.reports.get(robotSn) ?? []).some((report) => String(report.id) === taskReportId);
      return { body: { data: known ? [`${this.url}${OBJECT_PREFIX}${encodeURIComponent(taskReportId)}.png?X-Signature=s3cr3t`] : [] } };
    }
    return { status: 404, body: { code: 5, message: `no route ${request.method} ${url.pathname}` } };
  }

  private reportPage(serialNumber: string, query: URLSearchParams): ScriptedReply {
    if (this.failing.has(serialNumber)) return { status: 500, body: { code: 13, message: "internal" } };
    if (this.notBound.has(serialNumber)) return { status: 403, body: { code: 110003, message: "robot not bound to app" } };
    const page = Number(query.get("page") ?? 1);
    const pageSize = Number(query.get("pageSize") ?? 10);
    const floor = query.has("startTimeUtcFloor") && !this.ignoresWindow ? Date.parse(query.get("startTimeUtcFloor")!) : -Infinity;
    const upper = query.has("startTimeUtcUpper") && !this.ignoresWindow ? Date.parse(query.get("startTimeUtcUpper")!) : Infinity;
    const inWindow = (this.reports.get(serialNumber) ?? [])
      .filter((report) => {
        const start = Date.parse(String(report.startTime));
        return start >= floor && start <= upper;
      })
      .sort((a, b) => Date.parse(String(b.startTime)) - Date.parse(String(a.startTime)));
    return { body: { robotTaskReports: inWindow.slice((page - 1) * pageSize, page * pageSize), total: String(inWindow.length) } };
  }
}
