/**
 * What a robot's cleaning mode means. The cloud names modes in Chinese, with a
 * "__" prefix in a status's cleanModes and workModes and without it in task
 * reports ("__洗地", "洗地"). Only the names whose kind is unambiguous are read
 * (docs/cloud-api.md, "Task reports"); intensity names (中度清洁,
 * middle_cleaning), 地毯清洁 and 测试 say nothing about the kind and stay as they are.
 */
export const CLEANING_KINDS = {
  scrub: ["洗地", "滚刷洗地"],
  dustMop: ["尘推", "快速尘推", "低速尘推", "静音推尘", "布刷尘推"],
  polish: ["抛光", "深度抛光", "结晶模式"],
  vacuum: ["吸尘", "吸风清洁"],
  sweep: ["扫地"],
  disinfect: ["喷雾消毒"],
} as const satisfies Record<string, readonly string[]>;

export type CleaningKind = keyof typeof CLEANING_KINDS;

const KIND_OF_NAME = new Map<string, CleaningKind>(
  (Object.keys(CLEANING_KINDS) as CleaningKind[]).flatMap((kind) =>
    CLEANING_KINDS[kind].map((name): [string, CleaningKind] => [name, kind]),
  ),
);

/** The kind of cleaning a mode name stands for, or undefined when the name does not say. */
export function cleaningKindOf(mode: unknown): CleaningKind | undefined {
  if (typeof mode !== "string") return undefined;
  return KIND_OF_NAME.get(mode.trim().replace(/^__/, ""));
}

/**
 * Names that say no kind but still read as words: intensities, carpet, test,
 * and the plain 清洗 (washing) and 清扫 (sweeping) of older models.
 */
export const CLEANING_MODE_WORDS = {
  lightIntensity: ["轻度清洁", "light_cleaning"],
  mediumIntensity: ["中度清洁", "middle_cleaning"],
  heavyIntensity: ["重度清洁", "heavy_cleaning"],
  carpet: ["地毯清洁"],
  test: ["测试"],
  washing: ["清洗"],
  sweeping: ["清扫"],
} as const satisfies Record<string, readonly string[]>;

export type CleaningModeWords = keyof typeof CLEANING_MODE_WORDS;

const WORDS_OF_NAME = new Map<string, CleaningModeWords>(
  (Object.keys(CLEANING_MODE_WORDS) as CleaningModeWords[]).flatMap((words) =>
    CLEANING_MODE_WORDS[words].map((name): [string, CleaningModeWords] => [name, words]),
  ),
);

/**
 * What a mode is shown as, beside its name: its kind where the name says one
 * (cleaningKind.<kind> in the catalogs), else a readable name where there is
 * one (cleaningMode.<words>); undefined for a name nobody has read yet.
 */
export function cleaningModeMeaningOf(mode: unknown): { kind: CleaningKind } | { words: CleaningModeWords } | undefined {
  const kind = cleaningKindOf(mode);
  if (kind) return { kind };
  const words = typeof mode === "string" ? WORDS_OF_NAME.get(mode.trim().replace(/^__/, "")) : undefined;
  return words ? { words } : undefined;
}

/** The English words of each meaning: the runtime's own (Home Assistant's fan speeds); the editor reads its catalogs. */
const ENGLISH: Record<CleaningKind | CleaningModeWords, string> = {
  scrub: "scrub",
  dustMop: "dust mop",
  polish: "polish",
  vacuum: "vacuum",
  sweep: "sweep",
  disinfect: "disinfect",
  lightIntensity: "light intensity",
  mediumIntensity: "medium intensity",
  heavyIntensity: "heavy intensity",
  carpet: "carpet",
  test: "test",
  washing: "washing",
  sweeping: "sweeping",
};

/** A mode as a person reads it in English, as the editor's pickers show it: "尘推 – dust mop", "middle_cleaning – medium intensity". */
export function readableCleaningMode(mode: string): string {
  const meaning = cleaningModeMeaningOf(mode);
  const name = mode.trim().replace(/^__/, "");
  if (!meaning) return name;
  return `${name} – ${ENGLISH["kind" in meaning ? meaning.kind : meaning.words]}`;
}
