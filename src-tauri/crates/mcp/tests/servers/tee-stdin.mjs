// Runs a command with this process's stdin copied, line by line, to LOG as
// well: what the wrapped MCP server received (e.g. notifications/cancelled)
// can be asserted on. Usage: node tee-stdin.mjs LOG COMMAND ARGS...
import { spawn } from "node:child_process";
import fs from "node:fs";
import readline from "node:readline";

const [logPath, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "inherit", "inherit"] });
const rl = readline.createInterface({ input: process.stdin });
rl.on("line", (line) => {
  fs.appendFileSync(logPath, line + "\n");
  child.stdin.write(line + "\n");
});
rl.on("close", () => child.stdin.end());
child.on("exit", (code) => process.exit(code ?? 1));
