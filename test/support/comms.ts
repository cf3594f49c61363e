/**
 * What the editor is told of the nodes' statuses: Node-RED's comms websocket
 * (status/#), as the editor itself subscribes to it.
 */
import WebSocket from "ws";

/** The last status text of every node that reports one within `waitMs`, by node id; `url` is the editor's address. */
export async function statusesOf(url: string, waitMs = 3000): Promise<Map<string, string>> {
  const comms = new WebSocket(`${url.replace(/\/$/, "").replace(/^http/, "ws")}/comms`);
  const statuses = new Map<string, string>();
  await new Promise((resolve, reject) => {
    comms.once("open", resolve);
    comms.once("error", reject);
  });
  comms.on("message", (data: Buffer) => {
    for (const event of JSON.parse(data.toString()) as Array<{ topic: string; data: { text?: string } }>) {
      if (event.topic.startsWith("status/")) statuses.set(event.topic.slice("status/".length), event.data.text ?? "");
    }
  });
  comms.send(JSON.stringify({ subscribe: "status/#" }));
  await new Promise((resolve) => setTimeout(resolve, waitMs));
  comms.close();
  return statuses;
}
