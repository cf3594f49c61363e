/** Text put into HTML or SVG markup: every name that comes from the cloud or a flow passes through here. */
const MARKUP_ESCAPES: Readonly<Record<string, string>> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** The text with the five characters that markup reads (in content and in quoted attributes) escaped. */
export function escapeMarkup(value: string): string {
  return value.replace(/[&<>"']/g, (character) => MARKUP_ESCAPES[character]!);
}
