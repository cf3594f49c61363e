/**
 * A fleet on a recording server: robots whose statuses a test changes at will,
 * answered by the robot list, both batch statuses and B1, so watching and
 * confirmation can be checked change by change, with every request recorded.
 */
import { RecordingServer, type RecordedRequest, type ScriptedReply } from "./recording-server";

export interface StubStatus {
  serialNumber: string;
  displayName?: string;
  online: boolean;
  taskState: string;
  /** soh, cycleTimes and temperature1..7 as the recorded v1 status has them (robot-api-field-notes.md, turn 6). */
  battery: { powerPercentage: number; charging: boolean; soh?: string; cycleTimes?: number } & {
    [temperature: `temperature${number}`]: number;
  };
  emergencyStop: { enabled: boolean };
  localizationInfo: { localizationState: string };
  currentTask?: { name: string };
  /** NAVI_IDLE, the only value real statuses were seen with. */
  navStatus?: string;
  remoteControl?: { enabled: boolean };
  /** Wear parts ({lifeSpan, usedLife}, hours) and water tanks ({level}, %) as the recorded v1 status has them. */
  device?: Record<string, Record<string, unknown>>;
}

export function stubSerial(index: number): string {
  return `GS-S-${String(100000 + index).padStart(6, "0")}`;
}

export class FleetStub {
  readonly server = new RecordingServer();
  readonly statuses = new Map<string, StubStatus>();
  /** While set, every request is answered with it (a cloud that is down). */
  failure: ScriptedReply | undefined;

  constructor(robots: number) {
    for (let index = 1; index <= robots; index++) {
      const serialNumber = stubSerial(index);
      this.statuses.set(serialNumber, {
        serialNumber,
        displayName: `Robot ${index}`,
        online: true,
        taskState: "IDLE",
        battery: { powerPercentage: 85, charging: false },
        emergencyStop: { enabled: false },
        localizationInfo: { localizationState: "NORMAL" },
      });
    }
    this.server.respondWith((request) => this.answer(request));
  }

  async start(): Promise<this> {
    await this.server.start();
    return this;
  }

  get url(): string {
    return this.server.url;
  }

  /** Changes one robot's status, as the robot would. */
  update(serialNumber: string, change: (status: StubStatus) => void): void {
    const status = this.statuses.get(serialNumber);
    if (!status) throw new Error(`no robot ${serialNumber} in the stub`);
    change(status);
  }

  /** Forgets the requests recorded so far (the fleet and its answers stay). */
  clearRequests(): void {
    this.server.requests.length = 0;
  }

  /** The batch status requests recorded, each with the names it asked for. */
  batchRequests(): { names: string[]; at: number }[] {
    return this.server.requests
      .filter((request) => request.path.includes("status:batchGet"))
      .map((request) => ({ names: namesOf(request), at: request.at }));
  }

  protected answer(request: RecordedRequest): ScriptedReply {
    if (this.failure) return this.failure;
    const url = new URL(request.path, "http://stub");
    if (request.method === "GET" && url.pathname === "/v1alpha1/robots") {
      const page = Number(url.searchParams.get("page") ?? 1);
      const pageSize = Number(url.searchParams.get("pageSize") ?? 100);
      const all = [...this.statuses.values()];
      const robots = all
        .slice((page - 1) * pageSize, page * pageSize)
        .map(({ serialNumber, displayName }) => ({ serialNumber, displayName }));
      return { body: { robots, total: String(all.length) } };
    }
    if (url.pathname === "/v1alpha1/robots/-/status:batchGet") {
      return {
        body: { robotStatuses: this.pick(namesOf(request)).map((status) => ({ name: `robots/${status.serialNumber}`, ...status })) },
      };
    }
    if (url.pathname === "/openapi/v2alpha1/s/robots/*/status:batchGet") {
      return { body: { robotStatus: this.pick(namesOf(request)) } };
    }
    const single = /^\/openapi\/v2alpha1\/s\/robots\/([^/]+)\/status$/.exec(url.pathname);
    if (single) {
      const status = this.statuses.get(decodeURIComponent(single[1]!));
      return status ? { body: status } : { status: 404, body: { code: 5, message: "Robot not found." } };
    }
    // Its robots clean nothing: no task reports (robot-upkeep lists them at each read), an empty page as the cloud gives.
    if (/^\/openapi\/v2alpha1\/robots\/[^/]+\/taskReports$/.test(url.pathname)) return { body: { robotTaskReports: [] } };
    return { status: 404, body: { code: 5, message: `no route ${request.method} ${url.pathname} in the fleet stub` } };
  }

  private pick(names: string[]): StubStatus[] {
    return names.flatMap((name) => {
      const status = this.statuses.get(name);
      return status ? [structuredClone(status)] : [];
    });
  }
}

function namesOf(request: RecordedRequest): string[] {
  if (request.method === "GET" && request.body === undefined) return new URL(request.path, "http://stub").searchParams.getAll("names");
  const body = request.body as { names?: unknown } | undefined;
  return Array.isArray(body?.names) ? (body.names as string[]) : [];
}
