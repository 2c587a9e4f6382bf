import { describe, expect, it, vi } from "vitest";
import type { TimeZoneView } from "../bindings";
import { mountSolid } from "../solid";
import { TimeZoneSetting } from "./timezone";

const flush = async () => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

const system: TimeZoneView = { timeZone: "UTC", systemTimeZone: "UTC", fromSystem: true };

function fakeApi(start: TimeZoneView) {
  let current = start;
  return {
    getTimeZone: vi.fn(async () => current),
    setTimeZone: vi.fn(async (zone: string | null) => {
      if (zone === "Mars/Olympus") throw { code: "invalid_input", message: 'unknown time zone "Mars/Olympus"' };
      current = zone ? { ...current, timeZone: zone, fromSystem: false } : { ...current, timeZone: current.systemTimeZone, fromSystem: true };
      return current;
    }),
    errorMessage: (e: unknown) => (e as { message: string }).message,
  };
}

function type(root: HTMLElement, value: string) {
  const input = root.querySelector("[data-testid=time-zone-input]") as HTMLInputElement;
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

function submit(root: HTMLElement) {
  (root.querySelector("[data-testid=time-zone-save]") as HTMLButtonElement).click();
}

describe("time zone setting", () => {
  it("shows the system's zone, sets a chosen one, and goes back to the system's", async () => {
    const api = fakeApi(system);
    const root = document.createElement("div");
    document.body.append(root);
    const dispose = mountSolid(root, () => <TimeZoneSetting deps={{ api }} />);
    await flush();
    const current = () => root.querySelector("[data-testid=time-zone-current]")!.textContent!;
    expect(current()).toContain("UTC");
    expect(current()).toContain("the system's");
    expect(root.querySelector("[data-testid=time-zone-system]")).toBeNull();
    expect((root.querySelector("[data-testid=time-zone-save]") as HTMLButtonElement).disabled).toBe(true);

    type(root, " Europe/Berlin ");
    submit(root);
    await flush();
    expect(api.setTimeZone).toHaveBeenCalledWith("Europe/Berlin");
    expect(current()).toContain("Europe/Berlin");
    expect(current()).toContain("the system's is UTC");
    expect((root.querySelector("[data-testid=time-zone-input]") as HTMLInputElement).value).toBe("");

    (root.querySelector("[data-testid=time-zone-system]") as HTMLButtonElement).click();
    await flush();
    expect(api.setTimeZone).toHaveBeenLastCalledWith(null);
    expect(current()).toContain("the system's");
    expect(root.querySelector("[data-testid=time-zone-system]")).toBeNull();
    dispose();
    root.remove();
  });

  it("says why a zone was refused and keeps the one in use", async () => {
    const api = fakeApi({ ...system, timeZone: "Asia/Tokyo", fromSystem: false });
    const root = document.createElement("div");
    document.body.append(root);
    const dispose = mountSolid(root, () => <TimeZoneSetting deps={{ api }} />);
    await flush();
    type(root, "Mars/Olympus");
    submit(root);
    await flush();
    expect(root.querySelector("[role=alert]")!.textContent).toContain("unknown time zone");
    expect(root.querySelector("[data-testid=time-zone-current]")!.textContent).toContain("Asia/Tokyo");
    dispose();
    root.remove();
  });

  it("still offers the input when the zone cannot be read", async () => {
    const api = { ...fakeApi(system), getTimeZone: vi.fn(async () => Promise.reject({ message: "store closed" })) };
    const root = document.createElement("div");
    const dispose = mountSolid(root, () => <TimeZoneSetting deps={{ api }} />);
    await flush();
    expect(root.querySelector("[role=alert]")!.textContent).toBe("store closed");
    expect(root.querySelector("[data-testid=time-zone-input]")).not.toBeNull();
    dispose();
  });
});
