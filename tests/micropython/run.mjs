// Run Python under the real MicroPython interpreter (WebAssembly port) from tests.
// Input on stdin: JSON {"files": {"name.py": "source", ...}, "binary": {"name.mpy": "base64"},
// "code": "python source"}.
// The files are written to MicroPython's in-memory filesystem root (importable), the
// code runs, its stdout goes to our stdout. A Python exception exits with status 1.
import { loadMicroPython } from "@micropython/micropython-webassembly-pyscript";

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const job = JSON.parse(Buffer.concat(chunks).toString("utf8"));

const mp = await loadMicroPython({
  heapsize: 8 * 1024 * 1024,
  stdout: (line) => process.stdout.write(line + "\n"),
  stderr: (line) => process.stderr.write(line + "\n"),
});
for (const [name, source] of Object.entries(job.files || {})) {
  mp.FS.writeFile("/" + name, source);
}
for (const [name, data] of Object.entries(job.binary || {})) {
  mp.FS.writeFile("/" + name, new Uint8Array(Buffer.from(data, "base64")));
}
try {
  mp.runPython("import sys\nif '/' not in sys.path: sys.path.append('/')\n");
  mp.runPython(job.code);
} catch (error) {
  process.stderr.write(String(error.message || error) + "\n");
  process.exit(1);
}
