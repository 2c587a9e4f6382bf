import { describe, expect, it, vi } from "vitest";
import type { ProviderView } from "../bindings";
import { mountSolid } from "../solid";
import { SendImagesPicker } from "./send_images";
import { mountSettings, type SettingsApi } from "./settings";

function attached(): HTMLDivElement {
  const d = document.createElement("div");
  document.body.append(d);
  return d;
}

const tick = () => new Promise((r) => setTimeout(r, 0));
async function until(check: () => unknown): Promise<void> {
  for (let i = 0; i < 50 && !check(); i++) await tick();
  expect(check()).toBeTruthy();
}

describe("images per model", () => {
  it("shows the setting and sets on, off and back to the default", () => {
    const set = vi.fn().mockResolvedValue(undefined);
    const root = attached();
    mountSolid(root, () => (
      <>
        <SendImagesPicker model={{ id: 7, name: "llama3", isDefault: true, reasoning: null, sendImages: false }} set={set} />
        <SendImagesPicker model={{ id: 8, name: "llava", isDefault: false, reasoning: null }} set={set} />
      </>
    ));
    const [picker, other] = Array.from(root.querySelectorAll("select"));
    expect(picker.value).toBe("off");
    expect(other.value).toBe("");
    picker.value = "on";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith(true);
    picker.value = "off";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith(false);
    picker.value = "";
    picker.dispatchEvent(new Event("change"));
    expect(set).toHaveBeenLastCalledWith(null);
  });

  it("is on every stored model in Settings and saves through setModelSendImages", async () => {
    const providers: ProviderView[] = [
      { id: "lab", kind: "ollama", name: "Lab", baseUrl: null, hasApiKey: false, enabled: true, models: [{ id: 3, name: "llama3", isDefault: true, reasoning: null, sendImages: true }] },
    ];
    const setModelSendImages = vi.fn().mockResolvedValue(undefined);
    const api = {
      listProviders: vi.fn().mockResolvedValue(providers),
      envEndpoints: vi.fn().mockResolvedValue([]),
      localOllama: vi.fn().mockResolvedValue(null),
      setModelSendImages,
    };
    const root = attached();
    await mountSettings(root, { api: api as unknown as SettingsApi });
    await until(() => root.querySelector("[data-model=llama3] [data-testid=model-images]"));
    const picker = root.querySelector("[data-model=llama3] [data-testid=model-images]") as HTMLSelectElement;
    expect(picker.value).toBe("on");
    picker.value = "off";
    picker.dispatchEvent(new Event("change"));
    expect(setModelSendImages).toHaveBeenCalledWith(3, false);
    // Saved, the list is read again.
    await until(() => api.listProviders.mock.calls.length > 1);
  });
});
