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
