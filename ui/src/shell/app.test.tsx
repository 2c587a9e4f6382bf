import { afterEach, describe, expect, it, vi } from "vitest";
import { render } from "solid-js/web";

// The real route table pulls in every page; the frame's own behaviour is
// what is tested here, with two pages: a chat whose mount waits (as the real
// one reads its sessions first) and a settings page that mounts at once.
let releaseChat: () => void = () => undefined;
vi.mock("./routes", async (importOriginal) => {
  const real = await importOriginal<typeof import("./routes")>();
  const { mountSolid } = await import("../solid");
  return {
    ...real,
    PAGES: {
      chat: async (root: HTMLElement) => {
        await new Promise<void>((r) => (releaseChat = r));
        return mountSolid(root, () => <p data-testid="chat-page">chat</p>);
      },
      settings: (root: HTMLElement) => mountSolid(root, () => <form data-testid="settings-page">settings</form>),
    },
  };
});

const { App } = await import("./app");

const flush = () => new Promise((r) => setTimeout(r, 0));

afterEach(() => {
  location.hash = "";
});

describe("the frame's page mounts", () => {
  it("a page whose mount finishes after a later navigation never covers or empties the newer page", async () => {
    location.hash = "#/chat";
    const host = document.createElement("div");
    document.body.append(host);
    const dispose = render(
      () => (
        <App
          ctx={{ openDialog: () => undefined }}
          about={() => ""}
          badge={() => 0}
          help={() => false}
          setHelp={() => undefined}
          greet={() => false}
          setGreet={() => undefined}
        />
      ),
      host,
    );
    await flush();
    const pendingChat = releaseChat;
    location.hash = "#/settings";
    window.dispatchEvent(new HashChangeEvent("hashchange"));
    await flush();
    expect(host.querySelector("[data-testid=settings-page]")).not.toBeNull();

    // The chat's mount ends now, late: the settings page stays, alone.
    pendingChat();
    await flush();
    await flush();
    expect(host.querySelector("[data-testid=settings-page]")).not.toBeNull();
    expect(host.querySelector("[data-testid=chat-page]")).toBeNull();
    expect(host.querySelectorAll(".page-host > .page-mount")).toHaveLength(1);
    dispose();
    host.remove();
  });
});
