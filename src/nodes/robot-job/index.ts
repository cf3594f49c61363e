/**
 * robot-job: a message asks for work on a map (a task, an area, a navigation
 * point); the node sends the robot the dispatch policy chooses, tries another
 * when one refuses, waits for one to come free, and follows the job to its
 * end: output 1 once per job (or one catchable error), output 2 its progress.
 * The jobs live in the account's memory and in the node's context, so a
 * redeploy or restart follows them on and never stops a robot.
 */
import type { Node, NodeAPI, NodeDef, NodeMessage, NodeMessageInFlow } from "node-red";
import type { RobotClient } from "../../api/client";
import { RobotApiError } from "../../api/errors";
import { keptForAccount } from "../../api/account/account-memory";
import { robotDirectoryOf } from "../../api/account/robot-directory";
import { JOB_REASONS } from "../../api/jobs/dispatch";
import { jobsOfAccount, newJob, type AccountJobs, type JobRecord } from "../../api/jobs/job-book";
import { alarmsOfAccount } from "../../api/pushes/open-alarms";
import { reportsOfAccount } from "../../api/reports/report-store";
import { configProblemStatus, lookUpConfig } from "../shared/config-node";
import { ContextMirror } from "../shared/context-mirror";
import { StatusDrawer } from "../shared/node-status-view";
import { SHARED_CATALOGUE, translator } from "../shared/i18n";
import { readMessage } from "../shared/plain-data";
import { refuseMessages, takeMessages, type Outgoing } from "../shared/robot-input";
import { readJobRequest, readNodeDefaults, type NodeDefaults, type RobotJobSettings } from "../shared/jobs/job-input";
import { JobError, noRobot, type JobEnd, type JobProgress, type JobSink } from "../shared/jobs/job-end";
import { JobRunner } from "../shared/jobs/runner";
import { jobStatus } from "./status";

export interface RobotJobProperties extends NodeDef, RobotJobSettings {
  robot: string;
}

/** The job runners of an account's robot-job nodes in this process, by node id: a cancel reaches the node that owns the job. */
function runnersOfAccount(accountKey: string): Map<string, JobRunner> {
  return keptForAccount(accountKey, "job runners", () => new Map<string, JobRunner>());
}

/** The context key the node's jobs are copied to. */
export const JOBS_CONTEXT_KEY = "robot-job.jobs";


/** The message that asked for a job, while this deploy of the node holds it, and how its end is given to it. */
interface Asked {
  msg: NodeMessageInFlow;
  ended(outgoing: Outgoing): void;
  failed(error: Error): void;
}

function setUpRobotJob(RED: NodeAPI, node: Node, config: RobotJobProperties): void {
  const t = translator(RED, "robot-job");
  const { client, problem } = lookUpConfig(RED, config.robot);
  if (problem) {
    refuseMessages(node, configProblemStatus(problem, translator(RED, SHARED_CATALOGUE)), problem, { atDeploy: false, eachMessage: true });
    return;
  }
  let defaults: NodeDefaults | RobotApiError;
  try {
    defaults = readNodeDefaults(config);
  } catch (error) {
    defaults = error as RobotApiError;
  }
  const book: AccountJobs = jobsOfAccount(client.accountKey);
  const runners = runnersOfAccount(client.accountKey);
  const asked = new Map<string, Asked>();
  const mirror = new ContextMirror(node, JOBS_CONTEXT_KEY, () => book.toPlain(node.id));
  let runner: JobRunner | undefined;
  let closed = false;
  const status = new StatusDrawer(node, () => jobStatus(runner?.counts ?? { waiting: 0, running: 0 }, t));

  const sink: JobSink = {
    ended: (job, end) => endJob(job, end),
    progress: (job, progress) => sendProgress(job, progress),
    // With a message, so that a Catch node gets it: the job's id and its topic.
    fault: (job, error) => node.error(error, { topic: asked.get(job.jobId)?.msg.topic ?? job.topic, jobId: job.jobId } as NodeMessage),
    changed: () => {
      mirror.changed();
      if (runner) status.draw();
    },
  };

  function endJob(job: JobRecord, end: JobEnd): void {
    const holder = asked.get(job.jobId);
    asked.delete(job.jobId);
    const msg = (holder?.msg ?? { topic: job.topic }) as NodeMessage & Record<string, unknown>;
    msg.jobId = job.jobId;
    if (end instanceof Error) {
      if (holder) holder.failed(end);
      // Followed on after a redeploy: the message that asked is gone, the error is still catchable.
      else node.error(end, msg);
      return;
    }
    msg.payload = end;
    if (holder) holder.ended([msg, null]);
    else node.send([msg, null]);
  }

  function sendProgress(job: JobRecord, progress: JobProgress): void {
    const topic = asked.get(job.jobId)?.msg.topic ?? job.topic;
    node.send([null, { topic, jobId: job.jobId, payload: { jobId: job.jobId, ...(job.settings.name ? { name: job.settings.name } : {}), ...progress } } as NodeMessage]);
  }

  const started = startRunner(client);
  function startRunner(account: RobotClient): Promise<void> {
    // Jobs of this node from before a restart (a persistent context store) join those the process kept.
    return mirror.read().then((stored) => {
      book.restore(node.id, stored);
      if (closed) return;
      runner = new JobRunner(node.id, account, book, alarmsOfAccount(account.accountKey), reportsOfAccount(account.accountKey), sink, t);
      runners.set(node.id, runner);
      runner.start();
    });
  }

  // A job's message ends at the job's end: the answer settles then, with robot-job's end payload or its error.
  takeMessages(RED, node, async (msg) => {
    await started;
    if (!runner) return undefined;
    let end: Promise<Outgoing>;
    try {
      if (defaults instanceof RobotApiError) throw defaults;
      const { payload } = readMessage(msg, []);
      // A job of any node of the account in this process: its own node stops it and sends its one end.
      const ownerOf = (jobId: string) => {
        const owner = book.jobs.get(jobId)?.nodeId;
        return owner === undefined ? undefined : runners.get(owner);
      };
      const request = readJobRequest(payload, config, defaults, (jobId) => book.jobs.has(jobId), (jobId) => ownerOf(jobId) !== undefined);
      if ("cancel" in request) {
        await ownerOf(request.cancel)!.cancel(request.cancel);
        return undefined;
      }
      // A robot the account does not have ends the job at once: nothing is read or sent for it.
      if (request.settings.robots) {
        const refused = robotDirectoryOf(client.accountKey).robotsNotOfAccount(request.settings.robots);
        const notOfAccount = Array.isArray(refused) ? refused : await refused;
        if (notOfAccount.length > 0) throw noRobot(t, t("errors.notOfAccount"), Object.fromEntries(notOfAccount.map((serialNumber) => [serialNumber, JOB_REASONS.notOfAccount])));
      }
      (msg as Record<string, unknown>).jobId = request.jobId;
      end = new Promise<Outgoing>((ended, failed) => asked.set(request.jobId, { msg, ended, failed }));
      runner.add(newJob(node.id, request, typeof msg.topic === "string" ? msg.topic : undefined));
    } catch (error) {
      status.show({ fill: "red", shape: "ring", text: error instanceof RobotApiError || error instanceof JobError ? error.code : t("status.error") });
      throw error;
    }
    return end;
  });

  node.on("close", (removed: boolean, done: () => void) => {
    closed = true;
    runner?.close();
    if (runner && runners.get(node.id) === runner) runners.delete(node.id);
    const underWay = removed ? book.letGoOfNode(node.id, client.sharing?.robotClaims) : book.ofNode(node.id);
    if (removed) {
      if (underWay.length > 0) node.log(`removed with ${underWay.length} job${underWay.length === 1 ? "" : "s"} under way: no longer followed, no robot stopped`);
    } else if (underWay.length > 0) {
      node.log(`closed with ${underWay.length} job${underWay.length === 1 ? "" : "s"} under way: the node that replaces it follows them`);
    }
    // The jobs stay in the account's memory for the node that replaces this one; the context copy is written first.
    mirror.changed();
    void mirror.flush().then(() => done());
  });
}

export default function registerRobotJob(RED: NodeAPI): void {
  RED.nodes.registerType("robot-job", function RobotJob(this: Node, config: RobotJobProperties) {
    RED.nodes.createNode(this, config);
    setUpRobotJob(RED, this, config);
  });
}
