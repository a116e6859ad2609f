/**
 * Runs one subject a given number of flows after a fixed warm-up, and nothing else: for counting
 * instructions with callgrind, which is repeatable whatever else the machine is doing. Two runs
 * that differ only in the count cancel start-up and warm-up:
 *
 *   valgrind --tool=callgrind --callgrind-out-file=/dev/null node dist/sealing/count.js server-aes-gcm 500
 *   (instructions at 1500 flows − at 500) / 1000 = instructions per flow
 */
import { serverFlow } from "./server-flow.js";
import { SUBJECT_NAMES, type SubjectName, sealingSubjects } from "./subjects.js";

const WARMUP_FLOWS = 3000;
const [name = "", countText = "1000"] = process.argv.slice(2);
const count = Number(countText);

function subjectNamed(text: string): { flow: () => unknown } {
  if ((SUBJECT_NAMES as readonly string[]).includes(text)) {
    const [subject] = sealingSubjects([text as SubjectName]).subjects;
    if (subject) return subject;
  }
  for (const sealing of ["aes-gcm", "pass-through", "off"] as const) {
    if (text === `server-${sealing}`) return serverFlow(sealing);
  }
  throw new Error(
    `unknown subject "${text}": ${[...SUBJECT_NAMES, "server-aes-gcm", "server-pass-through", "server-off"].join(", ")}`,
  );
}

const subject = subjectNamed(name);
for (let i = 0; i < WARMUP_FLOWS + count; i++) await subject.flow();
