/**
 * Run before the tests (npm's pretest): the editor tests drive Debian's
 * Chromium, which npm cannot install. On a Debian machine where we are root it
 * is installed here, so `npm install && npm test` is the whole set-up; anywhere
 * else the message says what to install.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Chinese text in the dialogs and the map (cleaning modes, the zh-CN editor) needs a CJK font, or screenshots show empty boxes. */
const CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

function main(): void {
  const missing = [...(fs.existsSync(CHROMIUM) ? [] : ["chromium"]), ...(fs.existsSync(CJK_FONT) ? [] : ["fonts-wqy-microhei"])];
  if (missing.length === 0) return;
  const canApt = process.platform === "linux" && process.getuid?.() === 0 && fs.existsSync("/usr/bin/apt-get");
  if (!canApt) {
    if (!missing.includes("chromium")) return; // Only the screenshots' Chinese suffers without the font.
    console.error(
      `The editor tests need Chromium at ${CHROMIUM}. Install it (Debian/Ubuntu: sudo apt-get install chromium) ` +
        "or point CHROMIUM_PATH at one.",
    );
    process.exit(1);
  }
  console.log(`Installing Debian's ${missing.join(" and ")} for the editor tests...`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", ...missing], { stdio: "inherit", env });
}

main();
