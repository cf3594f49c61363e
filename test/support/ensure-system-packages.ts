/**
 * Run before the tests (npm's pretest): some tests need programs npm cannot
 * install. The editor tests drive Debian's Chromium (with a CJK font for the
 * Chinese in the screenshots); the tests of several Node-RED instances sharing
 * one account start Debian's redis-server (test/support/redis-server.ts), the MQTT
 * bridge's tests Debian's mosquitto (test/support/mosquitto.ts). On a
 * Debian machine where we are root the missing ones are installed here, so
 * `npm install && npm test` is the whole set-up; anywhere else the message says
 * what to install.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
/** Chinese text in the dialogs and the map (cleaning modes, the zh-CN editor) needs a CJK font, or screenshots show empty boxes. */
const CJK_FONT = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";
/** What test/support/redis-server.ts runs: REDIS_SERVER, or redis-server on the PATH. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? "redis-server";
/** What test/support/mosquitto.ts runs: MOSQUITTO, or Debian's mosquitto (in /usr/sbin, not always on a user's PATH). */
const MOSQUITTO = process.env.MOSQUITTO ?? (fs.existsSync("/usr/sbin/mosquitto") ? "/usr/sbin/mosquitto" : "mosquitto");

interface Need {
  /** Debian's package. */
  pkg: string;
  present: boolean;
  /** Without it, which tests cannot run; undefined when they run anyway (worse). */
  neededBy?: string;
  /** What to do where it cannot be installed here. */
  advice: string;
}

/** A command as spawn finds it: a path (with a slash) as is, a name on the PATH. */
function onPath(command: string): boolean {
  const executable = (file: string) => {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return fs.statSync(file).isFile();
    } catch {
      return false;
    }
  };
  if (command.includes("/")) return executable(command);
  return (process.env.PATH ?? "").split(path.delimiter).some((dir) => dir !== "" && executable(path.join(dir, command)));
}

function main(): void {
  const needs: Need[] = [
    {
      pkg: "chromium",
      present: fs.existsSync(CHROMIUM),
      neededBy: "The editor tests",
      advice: `need Chromium at ${CHROMIUM}. Install it (Debian/Ubuntu: sudo apt-get install chromium) or point CHROMIUM_PATH at one.`,
    },
    // Only the screenshots' Chinese suffers without the font.
    { pkg: "fonts-wqy-microhei", present: fs.existsSync(CJK_FONT), advice: "" },
    {
      pkg: "redis-server",
      present: onPath(REDIS_SERVER),
      neededBy: "The tests of several Node-RED instances sharing one account",
      advice: `need ${REDIS_SERVER}. Install Redis (Debian/Ubuntu: sudo apt-get install redis-server) or point REDIS_SERVER at a redis-server.`,
    },
    {
      pkg: "mosquitto",
      present: onPath(MOSQUITTO),
      neededBy: "The tests of the MQTT bridge (robot-mqtt)",
      advice: `need ${MOSQUITTO}. Install Mosquitto (Debian/Ubuntu: sudo apt-get install mosquitto) or point MOSQUITTO at a mosquitto.`,
    },
  ];
  const missing = needs.filter((need) => !need.present);
  if (missing.length === 0) return;
  const canApt = process.platform === "linux" && process.getuid?.() === 0 && fs.existsSync("/usr/bin/apt-get");
  if (!canApt) {
    const fatal = missing.filter((need) => need.neededBy !== undefined);
    for (const need of fatal) console.error(`${need.neededBy} ${need.advice}`);
    if (fatal.length > 0) process.exit(1);
    return;
  }
  const packages = missing.map((need) => need.pkg);
  console.log(`Installing Debian's ${packages.join(" and ")} for the tests...`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  execFileSync("apt-get", ["update", "-qq"], { stdio: "inherit", env });
  execFileSync("apt-get", ["install", "-y", "-qq", ...packages], { stdio: "inherit", env });
}

main();
