import { createSignal } from "solid-js";
import { mountSolid } from "./solid";

describe("mountSolid", () => {
  it("renders a component whose signal updates only its own text node and disposes cleanly", () => {
    const root = document.createElement("div");
    root.append(document.createElement("span"));
    const [count, setCount] = createSignal(1);
    const dispose = mountSolid(root, () => (
      <p>
        <b>fixed</b> <i>{count()}</i>
      </p>
    ));
    const fixed = root.querySelector("b");
    expect(root.querySelector("span")).toBeNull();
    expect(root.querySelector("i")?.textContent).toBe("1");
    setCount(2);
    expect(root.querySelector("i")?.textContent).toBe("2");
    expect(root.querySelector("b")).toBe(fixed);
    dispose();
    expect(root.textContent).toBe("");
  });
});

describe("mountSolid and a late cleanup", () => {
  it("an earlier mount's cleanup, run after the next mount, leaves the next one alone", () => {
    const root = document.createElement("div");
    const first = mountSolid(root, () => <p class="first">first</p>);
    const second = mountSolid(root, () => <p class="second">second</p>);
    first();
    expect(root.querySelector(".second")?.textContent).toBe("second");
    expect(root.querySelector(".first")).toBeNull();
    second();
    expect(root.childNodes.length).toBe(0);
  });
});
