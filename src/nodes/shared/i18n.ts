/**
 * The texts the runtime shows (the status under a node), from the package's
 * message catalogues: nodes/locales/<lang>/<catalogue>.json, read by Node-RED
 * in its runtime language (settings.lang, else the system's). Texts every node
 * shows live in the shared catalogue of the editor plugin (robot-fleet.json);
 * a node's own texts in its own catalogue.
 */
import type { NodeAPI } from "node-red";
import { englishText, SHARED_CATALOGUE } from "../../api/english-catalogue";

export { SHARED_CATALOGUE };

export const MODULE_NAME = "node-red-contrib-robot-fleet";

/** Texts without parameters a translator keeps, at most. */
const REMEMBERED_TEXTS = 1000;

export type Translate = (key: string, params?: Record<string, string | number>) => string;

/** Node-RED's catalogues mark parameters as __name__. */
function fill(text: string, params: Record<string, string | number> = {}): string {
  return text.replace(/__(\w+)__/g, (whole, name: string) => (name in params ? String(params[name]) : whole));
}

/**
 * Texts of one catalogue in the runtime's language; a key the catalogue lacks
 * is looked up in the shared one (words every node shows, such as a task
 * state's). Where the runtime has no catalogue to offer
 * (node-red-node-test-helper's RED._ answers with the key; an embedding
 * without i18n), the English catalogue is read from disk, so a status is
 * never a bare key.
 */
export function translator(RED: NodeAPI, catalogue: string): Translate {
  const own = catalogueText(RED, catalogue);
  const shared = catalogue === SHARED_CATALOGUE ? undefined : catalogueText(RED, SHARED_CATALOGUE);
  const lookUp: Translate = (shortKey, params) => own(shortKey, params) ?? shared?.(shortKey, params) ?? `${catalogue}.${shortKey}`;
  // The runtime's language is set when it starts, so a text without parameters is looked up once: a burst asks
  // the same few words (a command's state) for every message, and i18next takes tens of microseconds a lookup.
  const remembered = new Map<string, string>();
  return (shortKey, params) => {
    if (params) return lookUp(shortKey, params);
    let text = remembered.get(shortKey);
    if (text === undefined) {
      text = lookUp(shortKey);
      // Keys come from the catalogue and the cloud's values; a cloud sending ever new values is not remembered past this.
      if (remembered.size < REMEMBERED_TEXTS) remembered.set(shortKey, text);
    }
    return text;
  };
}

function catalogueText(RED: NodeAPI, catalogue: string): (shortKey: string, params?: Record<string, string | number>) => string | undefined {
  const namespace = `${MODULE_NAME}/${catalogue}`;
  return (shortKey, params) => {
    // Node-RED's convention: a catalogue's keys sit under its own name ({"robot-maps": {"status": ...}}).
    const key = `${catalogue}.${shortKey}`;
    const full = `${namespace}:${key}`;
    let text: string | undefined;
    try {
      text = (RED as unknown as { _: (key: string, params?: object) => string })._(full, params);
    } catch {
      text = undefined;
    }
    if (typeof text === "string" && text !== full && text !== key) return text;
    const fallback = englishText(catalogue, key);
    return fallback === undefined ? undefined : fill(fallback, params);
  };
}
