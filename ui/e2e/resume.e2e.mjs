// E2E: issue 10's defect 3. The app is killed (SIGKILL) while an answer
// streams; relaunched, it answers the interrupted turn again in the
// background, and the chat page shows that turn live — its text, Stop, and a
// banner saying the session was resumed after a crash — without navigating
// away and back. Stop then ends it.
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { addMockProvider, appThatComesBack, newChat, send, waitUntil } from "./helpers.mjs";

const t = appThatComesBack("resume", [
  // Streams a little, then stalls: the app is killed meanwhile.
  ["Counting: one,", " two,", 60_000, " never sent", { finish_reason: "stop" }],
  // The relaunched app asks again: this answer streams slowly and stalls,
  // so the page must show it live and Stop must end it.
  ["Resumed: one,", 400, " two,", 400, " three,", 60_000, " never sent", { finish_reason: "stop" }],
]);

test("killed mid-answer and relaunched: the resumed turn shows live with a banner, and Stop ends it", async () => {
  const { mock, apps } = t;
  let session = t.session;
  await addMockProvider(session, mock.baseUrl);
  await newChat(session);
  await send(session, "Count slowly.");
  await session.waitFor("return document.querySelector('[data-testid=conversation]')?.textContent.includes('two,')", {
    what: "the answer streaming",
  });
  const [first] = apps();
  assert.ok(first, "the app runs under the driver");
  process.kill(first, "SIGKILL");
  await waitUntil(() => !apps().includes(first), "the killed app to be gone");

  // Relaunch: the page opens on the newest chat, the one cut short.
  session = await t.relaunch();
  await session.waitFor("return !!document.querySelector('[data-testid=resumed-banner]:not([hidden])')", {
    what: "the resumed-after-a-crash banner",
  });
  assert.match(
    await session.execute("return document.querySelector('[data-testid=resumed-banner]').textContent"),
    /resumed after a crash/,
  );
  await session.waitFor("return document.querySelector('[data-testid=conversation]')?.textContent.includes('Resumed: one, two, three,')", {
    what: "the resumed answer streaming live",
  });
  assert.equal(await session.execute("return document.querySelector('[data-testid=stop]').hidden"), false, "Stop is offered");
  assert.equal(mock.requests.length, 2, "the relaunched app asked once");
  const shots = process.env.SKALD_SCREENSHOTS ?? join(tmpdir(), "skald-e2e-screenshots");
  mkdirSync(shots, { recursive: true });
  writeFileSync(join(shots, "resumed-after-crash.png"), await session.screenshot());

  await session.execute("document.querySelector('[data-testid=stop]').click()");
  await session.waitFor(
    "return document.querySelector('[data-testid=stop]').hidden && document.querySelector('.turn-note')?.textContent === 'Stopped.'",
    { what: "the resumed turn stopped" },
  );
  // What streamed before the stop stays.
  assert.match(await session.execute("return document.querySelector('[data-testid=conversation]').textContent"), /Resumed: one, two, three,/);
});
