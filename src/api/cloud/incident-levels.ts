/** The cloud's incident levels H0-H7 and what each means (docs/cloud-api.md, "Pushed events"). */

export const INCIDENT_LEVELS = {
  H0: "event notification, not an alarm",
  H1: "statistics point",
  H2: "routine robot state, user can resolve without guidance",
  H3: "warning, task not affected, user can resolve",
  H4: "task affected, user can resolve",
  H5: "hidden danger, task not affected, user cannot resolve",
  H6: "fault, task affected, user cannot resolve",
  H7: "quality issue, serious failure",
} as const;

export type IncidentLevelCode = keyof typeof INCIDENT_LEVELS;
export const INCIDENT_LEVEL_CODES = Object.keys(INCIDENT_LEVELS) as IncidentLevelCode[];

export interface IncidentLevel {
  /** "H0" to "H7". */
  code: IncidentLevelCode;
  /** 0 to 7: a flow compares levels with it. */
  rank: number;
  meaning: string;
}

/**
 * The level of "H4", "h4", 4 or "4"; undefined for anything else. The field
 * notes show the codes, not whether the cloud sends them as text or numbers.
 */
export function incidentLevelOf(value: unknown): IncidentLevel | undefined {
  // Stryker disable next-line StringLiteral: any text that is no level does here; "" is just the shortest
  const text = typeof value === "number" || typeof value === "string" ? String(value).trim().toUpperCase() : "";
  const code = (/^[0-7]$/.test(text) ? `H${text}` : text) as IncidentLevelCode;
  if (!Object.hasOwn(INCIDENT_LEVELS, code)) return undefined;
  return { code, rank: Number(code.slice(1)), meaning: INCIDENT_LEVELS[code] };
}
