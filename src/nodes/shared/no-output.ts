/** Messages that end with done() and no output: a node's run() resolves with one of these, counted in its status. */
export class NoOutput {
  constructor(readonly reason: "skipped" | "replaced") {}
}
export const SKIPPED = new NoOutput("skipped");
export const REPLACED = new NoOutput("replaced");
