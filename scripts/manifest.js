#!/usr/bin/env node
// npm pack's prepack and postpack: the packed package.json leaves out "prepare", which only builds a
// source checkout (a git URL install runs it before packing). Installed from the registry or a
// tarball there is nothing to build, and npm 11 would warn about an install script to approve.
"use strict";
const fs = require("node:fs");
const path = require("node:path");

const manifest = path.resolve(__dirname, "..", "package.json");
const kept = `${manifest}.unpacked`;

switch (process.argv[2]) {
  case "strip": {
    const text = fs.readFileSync(manifest, "utf8");
    fs.writeFileSync(kept, text);
    const pkg = JSON.parse(text);
    delete pkg.scripts.prepare;
    fs.writeFileSync(manifest, `${JSON.stringify(pkg, null, 2)}\n`);
    break;
  }
  case "restore":
    if (fs.existsSync(kept)) fs.renameSync(kept, manifest);
    break;
  default:
    console.error("usage: manifest.js strip|restore");
    process.exit(2);
}
