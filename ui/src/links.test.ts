import { describe, expect, it, vi } from "vitest";
import { guardLinks, installContextMenu, linkAction, menuItems } from "./links";

describe("linkAction", () => {
  it("routes app links, opens web and mail links outside, refuses the rest", () => {
    expect(linkAction("#/chat/s1")).toEqual({ kind: "app" });
    expect(linkAction(null)).toEqual({ kind: "app" });
    expect(linkAction("https://example.com/a b")).toEqual({ kind: "external", url: "https://example.com/a%20b" });
    expect(linkAction("mailto:x@example.com")).toEqual({ kind: "external", url: "mailto:x@example.com" });
    for (const bad of ["file:///etc/passwd", "javascript:alert(1)", "tauri://localhost/", "smb://h/s", "not a url"]) {
      expect(linkAction(bad).kind).toBe("refuse");
    }
  });
});

describe("guardLinks", () => {
  it("a click on a web link opens it outside and the page does not navigate", () => {
    const root = document.createElement("div");
    root.innerHTML = `<p><a href="https://example.com/x">site</a> <a href="file:///etc/passwd">f</a> <a href="#/inbox">in</a></p>`;
    document.body.append(root);
    const open = vi.fn().mockResolvedValue(undefined);
    guardLinks(root, open);
    const [web, file, app] = Array.from(root.querySelectorAll("a"));
    const clicked = (a: HTMLAnchorElement) => {
      const e = new MouseEvent("click", { bubbles: true, cancelable: true });
      a.dispatchEvent(e);
      return e.defaultPrevented;
    };
    expect(clicked(web)).toBe(true);
    expect(open).toHaveBeenCalledWith("https://example.com/x");
    expect(clicked(file)).toBe(true);
    expect(clicked(app)).toBe(false);
    expect(open).toHaveBeenCalledTimes(1);
  });
});

describe("context menu", () => {
  it("offers copy for a selection and open/copy for a link, and leaves text fields to the system", () => {
    const open = vi.fn().mockResolvedValue(undefined);
    const p = document.createElement("p");
    p.innerHTML = `<a href="https://example.com/">x</a>`;
    const a = p.querySelector("a") as HTMLAnchorElement;
    expect(menuItems(a, "", open)?.map((i) => i.label)).toEqual(["Open link", "Copy link"]);
    expect(menuItems(p, "some text", open)?.map((i) => i.label)).toEqual(["Copy"]);
    expect(menuItems(p, "", open)).toEqual([]);
    expect(menuItems(document.createElement("textarea"), "x", open)).toBeNull();
  });

  it("replaces the default menu and runs the chosen item", () => {
    const open = vi.fn().mockResolvedValue(undefined);
    installContextMenu(document, open);
    const a = document.createElement("a");
    a.href = "https://example.com/menu";
    document.body.append(a);
    const e = new MouseEvent("contextmenu", { bubbles: true, cancelable: true, clientX: 5, clientY: 6 });
    a.dispatchEvent(e);
    expect(e.defaultPrevented).toBe(true);
    const menu = document.querySelector("[data-testid=context-menu]") as HTMLElement;
    expect(menu.textContent).toContain("Open link");
    (menu.querySelector("button") as HTMLButtonElement).click();
    expect(open).toHaveBeenCalledWith("https://example.com/menu");
    expect(document.querySelector("[data-testid=context-menu]")).toBeNull();
  });
});
