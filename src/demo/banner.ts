/**
 * What the demo prints in the terminal, in the language its Node-RED runs in:
 * `--lang` (or DEMO_LANG), else the locale Node-RED itself would take from the
 * environment (LC_ALL, LC_MESSAGES, LANG). English and Chinese; the type keeps
 * both with the same texts.
 */
import path from "node:path";
import type { DEMO_DEFAULTS } from "./command-line";

export interface BannerFacts {
  host: string;
  port: number;
  simulatorUrl: string;
  token: string;
  mqttPort: number;
  sensorTopic: string;
  pushUrl: string | undefined;
  second: { port: number; redisUrl: string } | undefined;
  userDir: string;
  kept: boolean;
  savedAs: string | undefined;
}

/** What the help shows besides its words: the defaults and where the flows are kept now. */
export interface UsageFacts {
  defaults: typeof DEMO_DEFAULTS;
  folder: string;
}

interface DemoWords {
  banner(facts: BannerFacts): string;
  usage(facts: UsageFacts): string;
  badOption(why: string): string;
  secondCtrlC: string;
  stopping: string;
  stopLimit(seconds: number): string;
  stopped(ms: number): string;
  couldNotStart(why: string): string;
}

function sensorCommand(facts: BannerFacts): string {
  return `npx mqtt pub -h 127.0.0.1 -p ${facts.mqttPort} -t ${facts.sensorTopic} -m '{"map":"Floor 1","near":"Kitchen door"}'`;
}

function incidentCommand(facts: BannerFacts): string {
  return `curl -X POST ${facts.simulatorUrl}/_sim/robots/GS-S-000101/incidents -H 'Content-Type: application/json' -d '{"incidentLevel":"H5","incidentName":"Lidar blocked"}'`;
}

/** The simulator's control request a person's refill stands for (docs/simulator.md, Wear and upkeep). */
function refillCommand(facts: BannerFacts): string {
  return `curl -X PATCH ${facts.simulatorUrl}/_sim/robots/GS-S-000102/wear -H 'Content-Type: application/json' -d '{"cleanWater":100}'`;
}

/** Where the cleaning-reports example writes its CSV: its default name, relative to the demo folder Node-RED runs in. */
function reportsCsv(facts: BannerFacts): string {
  return path.join(facts.userDir, "cleaning-reports.csv");
}

const ENGLISH: DemoWords = {
  banner: (facts) => {
    const at = `http://${facts.host}:${facts.port}`;
    return `
  Robot fleet demo is running.
    Node-RED editor   ${at}/
    Fleet dashboard   ${at}/dashboard   (Node-RED Dashboard 2: live map, table, buttons)
    Fleet page        ${at}/fleet   (the same map without Dashboard 2)
    Robot simulator   ${facts.simulatorUrl}   (token "${facts.token}")
    MQTT broker       mqtt://127.0.0.1:${facts.mqttPort}

  Publish a sensor message to start a cleaning run:
    ${sensorCommand(facts)}
  The debug sidebar of the iot-spill-sensor-cleaning tab shows the job's progress (the robot
  nearest to the kitchen door assigned, then started) and, when it is done, its end. Every other tab has an inject per operation.

  The simulator pushes incidents and task reports to ${facts.pushUrl ?? "(no robot-events node)"}. Raise one:
    ${incidentCommand(facts)}
  The incident-alerts tab's debug shows it; the dashboard rings the robot and notifies.

  The robots wear as they clean: the Warehouse sweeper's filter is due (8 % left), the Lobby scrubber's
  squeegee a few cleaning hours from due, and the Kitchen scrubber's clean water is at 12 %. Refill it as a
  person would:
    ${refillCommand(facts)}
${
  facts.second
    ? `
  Shared mode: a second Node-RED runs the same flows and shares the robot account
  with the first through Redis at ${facts.second.redisUrl} (rate, pause, token, watching).
    Second Node-RED   http://${facts.host}:${facts.second.port}/   (its watching nodes stand by while the first watches)
`
    : ""
}
  Flows are kept in ${facts.userDir}${facts.kept ? " (those of your last run)" : ""}.
  So is the shift: open alarms and their acknowledgements, jobs and the reports already sent (context/),
  and the cleaning reports, each once, in ${reportsCsv(facts)}.
  npm start -- --fresh starts again from the example flows${facts.savedAs ? `; your previous flows were saved as ${facts.savedAs}` : ", saving yours beside them first"}.
  Ctrl-C stops everything.
`;
  },
  usage: ({ defaults, folder }) => `Usage: npm start -- [options]

The robot fleet demo on this machine: the robot-cloud simulator, an MQTT broker and Node-RED with
these nodes and every example flow deployed against the simulator. Ctrl-C, SIGINT or SIGTERM (to
npm or to the demo) stops all of it and frees every port.

Options:
  --fresh          start again from the example flows (yours are saved beside them first)
  --shared         also run a second Node-RED with the same flows, sharing the robot account
                   with the first through Redis
  --verbose        the simulator logs every request, not only the failed ones
  --lang CODE      Node-RED's language and the terminal's (zh-CN: Chinese)
  -h, --help       show this text and start nothing

Environment (a port of 0 picks a free one):
  PORT                        the editor's port (default ${defaults.port})
  HOST                        the address Node-RED listens on (default ${defaults.host})
  SIMULATOR_PORT              the simulator's port (default ${defaults.simulatorPort})
  MQTT_PORT                   the MQTT broker's port (default ${defaults.mqttPort})
  SIMULATOR_ROBOTS            grow the simulated fleet to this many robots (1-${defaults.maxRobots}; default 3)
  SIMULATOR_TASK_FAULT_RATE   share 0..1 of task starts that fail (default ${defaults.taskFaultRate}; 0 turns it off)
  DEMO_DIR                    where the flows and the shift are kept (now ${folder})
  DEMO_LANG                   the language without --lang
  LC_ALL, LC_MESSAGES, LANG   the locale, without either (zh_*: Chinese)
  With --shared:
  SECOND_PORT                 the second Node-RED's port (default PORT + 1)
  REDIS_PORT                  the port of the redis-server the demo starts (default ${defaults.redisPort})
  REDIS_URL                   a Redis of yours, instead of starting one`,
  badOption: (why) => `The demo does not take that: ${why}\nnpm start -- --help lists what it takes.`,
  secondCtrlC: "Stopped at once (second Ctrl-C).",
  stopping: "\nStopping the demo...",
  stopLimit: (seconds) => `The demo did not stop within ${seconds} s: exiting anyway.`,
  stopped: (ms) => `Stopped in ${ms} ms: every port is free.`,
  couldNotStart: (why) => `The demo could not start: ${why}`,
};

const CHINESE: DemoWords = {
  banner: (facts) => {
    const at = `http://${facts.host}:${facts.port}`;
    return `
  机器人车队演示已运行。
    Node-RED 编辑器   ${at}/
    车队操作台        ${at}/dashboard   （Node-RED Dashboard 2：实时地图、表格、按钮）
    车队页面          ${at}/fleet   （同一张地图，无需 Dashboard 2）
    机器人模拟器      ${facts.simulatorUrl}   （令牌 "${facts.token}"）
    MQTT 代理         mqtt://127.0.0.1:${facts.mqttPort}

  发布一条传感器消息即可开始一次清洁：
    ${sensorCommand(facts)}
  iot-spill-sensor-cleaning 标签页的调试侧栏显示作业进度（分配并启动离厨房门最近的机器人），
  完成后显示其结束。其他每个标签页都为每项操作配有一个注入节点。

  模拟器把故障和任务报告推送到 ${facts.pushUrl ?? "（没有 robot-events 节点）"}。触发一个故障：
    ${incidentCommand(facts)}
  incident-alerts 标签页的调试侧栏会显示它；操作台会圈出该机器人并发出通知。

  机器人在清洁中磨损：仓库扫地机的滤网已到期（剩 8%），大堂洗地机的刮条再清洁几个小时就需更换，厨房洗地机的清水只剩 12%。像现场人员一样加水：
    ${refillCommand(facts)}
${
  facts.second
    ? `
  共享模式：第二个 Node-RED 运行相同的流程，并通过 ${facts.second.redisUrl} 的 Redis
  与第一个共享机器人账户（速率、暂停、令牌、监视）。
    第二个 Node-RED   http://${facts.host}:${facts.second.port}/   （第一个在监视时，它的监视节点待命）
`
    : ""
}
  流程保存在 ${facts.userDir}${facts.kept ? "（即上次运行的流程）" : ""}。
  当班的状态也保存在那里：未关闭的告警及其确认、作业和已发送的报告（context/），
  以及清洁报告（每份一次）：${reportsCsv(facts)}。
  npm start -- --fresh 从示例流程重新开始${facts.savedAs ? `；你之前的流程已另存为 ${facts.savedAs}` : "，会先把你的流程另存在旁边"}。
  按 Ctrl-C 停止全部。
`;
  },
  usage: ({ defaults, folder }) => `用法：npm start -- [选项]

在本机运行机器人车队演示：机器人云模拟器、一个 MQTT 代理，以及装有这些节点的 Node-RED，
所有示例流程都已部署并连接到模拟器。Ctrl-C、SIGINT 或 SIGTERM（发给 npm 或演示进程）会停止
全部并释放所有端口。

选项：
  --fresh          从示例流程重新开始（会先把你的流程另存在旁边）
  --shared         另外运行第二个 Node-RED，运行相同的流程，并通过 Redis 与第一个共享机器人账户
  --verbose        模拟器记录每个请求，而不只是失败的请求
  --lang CODE      Node-RED 和终端使用的语言（zh-CN：中文）
  -h, --help       显示本说明，不启动任何东西

环境变量（端口为 0 时自动选择空闲端口）：
  PORT                        编辑器端口（默认 ${defaults.port}）
  HOST                        Node-RED 监听的地址（默认 ${defaults.host}）
  SIMULATOR_PORT              模拟器端口（默认 ${defaults.simulatorPort}）
  MQTT_PORT                   MQTT 代理端口（默认 ${defaults.mqttPort}）
  SIMULATOR_ROBOTS            把模拟车队扩大到这么多台机器人（1-${defaults.maxRobots}；默认 3）
  SIMULATOR_TASK_FAULT_RATE   任务启动失败的比例 0..1（默认 ${defaults.taskFaultRate}；0 表示关闭）
  DEMO_DIR                    保存流程和当班状态的文件夹（当前为 ${folder}）
  DEMO_LANG                   未给出 --lang 时使用的语言
  LC_ALL、LC_MESSAGES、LANG   两者都未给出时的区域设置（zh_*：中文）
  使用 --shared 时：
  SECOND_PORT                 第二个 Node-RED 的端口（默认 PORT + 1）
  REDIS_PORT                  演示启动的 redis-server 的端口（默认 ${defaults.redisPort}）
  REDIS_URL                   使用你自己的 Redis，而不启动新的`,
  badOption: (why) => `演示不接受该参数：${why}\n运行 npm start -- --help 查看可用的选项。`,
  secondCtrlC: "已立即停止（第二次 Ctrl-C）。",
  stopping: "\n正在停止演示……",
  stopLimit: (seconds) => `演示未能在 ${seconds} 秒内停止：仍然退出。`,
  stopped: (ms) => `已在 ${ms} 毫秒内停止：所有端口均已释放。`,
  couldNotStart: (why) => `演示无法启动：${why}`,
};

/**
 * The words for `lang` (the demo's --lang), else for the environment's
 * locale as Node-RED reads it: Chinese for any zh locale, English otherwise.
 */
export function demoWords(lang: string | undefined, env: NodeJS.ProcessEnv = process.env): DemoWords {
  const fromEnv = ["LC_ALL", "LC_MESSAGES", "LANG"].map((name) => env[name]).find((value) => value !== undefined);
  return /^zh/i.test(lang ?? fromEnv ?? "") ? CHINESE : ENGLISH;
}
